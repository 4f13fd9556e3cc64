# template: var=total hole=read
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", enabled=True)
total = torch.zeros(8, 1)
for step in range(ITERS):
    out = model(torch.randn(8, 3))
    loss = (out ** 2).mean()
    opt.zero_grad()
    helpers.scaled_backward(scaler, loss)
    scaler.step(opt)
    scaler.update()
    total = total + out
    shown = @E@
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f} {num(shown):.6f}")
