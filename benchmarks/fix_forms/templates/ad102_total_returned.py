# template: var=result hole=read
def train_epoch(model, opt):
    total = 0
    for step in range(ITERS):
        loss = helpers.step_loss(model, torch.randn(8, 3))
        opt.zero_grad()
        loss.backward()
        opt.step()
        total = total + loss
    return total


model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
result = train_epoch(model, opt)
shown = @E@
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f} {num(shown):.6f}")
