# expect-before: runs
# autodetach-test: unsafe
# A few-shot notebook's fit helper backwards with `create_graph=create_graph,
# retain_graph=True`: the meta-learning loop asks for create_graph=True (which
# retains by itself), the transfer and fine-tuning loops call it with the
# default False, and there nothing backwards that loss again. The retain only
# keeps each fit's activations alive until the next fit replaces them; without
# it, `retain_graph` defaults to `create_graph`, which still retains for the
# meta-learning loop. That no caller backwards the loss again, and that `net`
# is a module, are inferred (`net` and the data are arguments): the fix is unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class SineNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(1, 32)
        self.out = nn.Linear(32, 1)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


def fit(net, x, y, optim=None, create_graph=False):
    if optim is not None:
        optim.zero_grad()
    loss = F.mse_loss(net(x), y)
    loss.backward(create_graph=create_graph)
    if optim is not None:
        optim.step()
    return loss.item()


def wave(n=16):
    x = torch.rand(n, 1) * 10 - 5
    return x, torch.sin(x + torch.rand(1))


transfer = SineNet()
optim = torch.optim.Adam(transfer.parameters(), lr=1e-3)
for step in range(ITERS):
    x, y = wave()
    print(f"transfer {step} {fit(transfer, x, y, optim):.6f}")

meta = SineNet()
for step in range(ITERS):
    x, y = wave()
    meta.zero_grad()
    fit(meta, x, y, create_graph=True)
    grads = [p.grad for p in meta.parameters()]
    penalty = sum(g.pow(2).sum() for g in grads)
    meta.zero_grad()
    penalty.backward()
    with torch.no_grad():
        for p in meta.parameters():
            p -= 1e-3 * p.grad
    print(f"meta {step} penalty {penalty.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in transfer.parameters()):.6f}")
print(f"checksum {sum(p.sum().item() for p in meta.parameters()):.6f}")
