# template: var=total hole=read
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0.0
for step in range(ITERS):
    out = model(torch.randn(8, 3))
    loss = (out ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss
opt.zero_grad()
helpers.step_loss(model, torch.randn(8, 3)).add(0.01 * (@E@).float().mean()).backward()
opt.step()
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f}")
