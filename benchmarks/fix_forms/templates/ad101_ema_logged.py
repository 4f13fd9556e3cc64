# template: var=ema hole=read
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ema = torch.zeros(8, 1)
for step in range(ITERS):
    out = model(torch.randn(8, 3))
    ema = 0.9 * ema + 0.1 * out
    loss = (out ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    shown = @E@
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f} {num(shown):.6f}")
