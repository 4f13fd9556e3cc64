# expect-before: runs
# A 0.3-era smoothing target: `Variable(out)` was used to cut the graph, because
# since 0.4 `Variable(x)` returns a detached alias. Dropping the wrapper (the
# naive migration) would make the second backward walk into the first step's
# freed graph; the right rewrite is `out.detach()`.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
prev = torch.zeros(5, 2)
for step in range(4):
    x = torch.randn(5, 4)
    out = net(x)
    loss = (out - 1).pow(2).mean() + 0.5 * (out - prev).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    prev = out.detach()
    print(f"{step} {loss.item():.6f} {prev.requires_grad}")
