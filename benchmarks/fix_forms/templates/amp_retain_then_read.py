# template: var=out hole=read
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", enabled=True)
for step in range(ITERS):
    out = model(torch.randn(8, 3))
    opt.zero_grad()
    scaler.scale((out ** 2).mean()).backward(retain_graph=True)
    loss2 = (@E@).float().mean()
    scaler.scale(loss2).backward()
    scaler.step(opt)
    scaler.update()
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f}")
