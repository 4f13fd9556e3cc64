# template: var=h[0] hole=read
# ref: out, h = rnn(x, h) => out, h = rnn(x, h.detach())
rnn = torch.nn.GRU(3, 1)
opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
h = torch.zeros(1, 8, 1)
for step in range(ITERS):
    x = torch.randn(4, 8, 3)
    out, h = rnn(x, h)
    loss = (out ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    shown = @E@
print(f"{sum(p.sum().item() for p in rnn.parameters()):.6f} {num(shown):.6f}")
