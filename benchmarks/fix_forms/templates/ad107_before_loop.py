# template: var=w hole=read
# ref: w = torch.nn.functional.normalize(model.weight, dim=0) => pass
# ref: out = x @ w.t() => w = torch.nn.functional.normalize(model.weight, dim=0); out = x @ w.t()
model = torch.nn.Linear(3, 8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
w = torch.nn.functional.normalize(model.weight, dim=0)
for step in range(ITERS):
    x = torch.randn(8, 3)
    out = x @ w.t()
    loss = (out ** 2).mean() + 0.01 * (@E@).float().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f}")
