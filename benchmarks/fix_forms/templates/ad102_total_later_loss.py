# template: var=total hole=read
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = torch.zeros(8, 1)
for step in range(ITERS):
    out = model(torch.randn(8, 3))
    loss = (out ** 2).mean() + 0.01 * (@E@).float().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total = total + out
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f}")
