# expect-before: runs
# `.detach()` results that are used: printed, converted for logging, returned
# and passed on, never dropped.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Tracker:
    def __init__(self):
        self.history = []

    def record(self, value):
        self.history.append(value)


def snapshot(t):
    return t.detach().clone()


torch.manual_seed(0)
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
tracker = Tracker()
for it in range(ITERS):
    out = model(torch.randn(8, 4))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    tracker.record(out.detach())
    last = snapshot(out)
    print(f"{it} loss {loss.item():.6f} mean {out.detach().mean().item():.6f}")
    print("first row", [f"{v:.6f}" for v in last[0].tolist()])

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
