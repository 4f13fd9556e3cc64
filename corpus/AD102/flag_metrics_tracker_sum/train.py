# expect-before: runs
# The loop keeps its statistics in a dict class of the project that defines `+`
# and `*` (`tot_loss = tot_loss * decay + info`), and one statistic is the loss itself, with
# its graph: every batch's graph stays alive in the running sum. Reported without
# a fix: `(tot_loss * decay + info).detach()` would fail on a dict; keep detached
# tensors (or numbers) in it instead.
import os

import torch
import torch.nn as nn

from metrics import Tracker

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

tot_loss = Tracker()
for it in range(ITERS):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    loss = nn.functional.mse_loss(model(x), y)
    info = Tracker()
    info["samples"] = len(x)
    info["loss"] = loss * len(x)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    tot_loss = (tot_loss * 0.5) + info
    print(f"{it} loss {loss.item():.6f}")

print(f"mean loss {(tot_loss['loss'] / tot_loss['samples']).item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
