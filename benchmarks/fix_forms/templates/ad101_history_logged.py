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
shown = @E@
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f} {num(shown):.6f}")
