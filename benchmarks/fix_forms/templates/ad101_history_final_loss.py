# template: var=history[-1] hole=read
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
history = []
for step in range(ITERS):
    out = model(torch.randn(8, 3))
    history.append(out)
    loss = (out ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
opt.zero_grad()
final = (@E@).float().mean()
final.backward()
opt.step()
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f}")
