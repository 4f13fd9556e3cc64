# expect-before: runs
# A notebook-style script: the step function of another file hands back a
# number (it rebinds the error to `.item()` after its backward), and the
# held-out score is computed under `torch.no_grad()`: neither list keeps a graph.
import os

import torch
import torch.nn as nn
from engine import fit_batch, score

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Sequential(nn.Linear(4, 12), nn.ReLU(), nn.Linear(12, 1))
opt = torch.optim.Adam(net.parameters(), lr=0.01)
curve, held = [], []
for it in range(ITERS * 2):
    x = torch.randn(8, 4)
    out = fit_batch(net, opt, x, x.sum(1, keepdim=True))
    curve.append(out)
    held.append(score(net, x, x.sum(1, keepdim=True)))
print(f"first {float(curve[0]):.6f} last {float(curve[-1]):.6f} held {float(sum(held)):.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
