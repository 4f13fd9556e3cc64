# template: var=total hole=read
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", enabled=True)
total = 0.0
for step in range(ITERS):
    with torch.autocast("cpu", enabled=False):
        loss = (model(torch.randn(8, 3)) ** 2).mean()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    total += loss
shown = @E@
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f} {num(shown):.6f}")
