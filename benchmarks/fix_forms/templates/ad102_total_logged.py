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
shown = @E@
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f} {num(shown):.6f}")
