# expect-before: runs
# A physics-informed fit: a small class memoizes input derivatives, each one
# built with create_graph=True so that the loss can train through it, in a dict
# keyed by the (output, input) pair. The loop empties the cache after every
# step (`cache.reset()` runs `self.table.clear()`), so no entry, and no graph,
# reaches the next iteration: a detach at the store would stop the derivative
# term training the network.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class DerivativeCache:
    def __init__(self):
        self.table = {}

    def d(self, net, x, out, wrt):
        pair = (out, wrt)
        if pair not in self.table:
            y = net(x)[:, out].sum()
            self.table[pair] = torch.autograd.grad(y, x, create_graph=True)[0][:, wrt]
        return self.table[pair]

    def reset(self):
        self.table.clear()


net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
cache = DerivativeCache()
for step in range(ITERS):
    x = torch.rand(32, 2, requires_grad=True)
    curl = cache.d(net, x, 1, 0) - cache.d(net, x, 0, 1)
    div = cache.d(net, x, 0, 0) + cache.d(net, x, 1, 1)
    loss = (curl - 1.0).pow(2).mean() + div.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    cache.reset()
print(f"loss {loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
