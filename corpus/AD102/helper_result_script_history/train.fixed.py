# expect-before: runs
# A notebook-style script: the step is a plain function of another file that
# backwards and steps, then hands back the error it backwarded. The script
# keeps it in `curve` for a plot-like summary at the end, so every batch's
# graph stays alive for the whole run.
import os

import torch
import torch.nn as nn
from engine import fit_batch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Sequential(nn.Linear(4, 12), nn.ReLU(), nn.Linear(12, 1))
opt = torch.optim.Adam(net.parameters(), lr=0.01)
curve = []
for it in range(ITERS * 2):
    x = torch.randn(8, 4)
    out = fit_batch(net, opt, x, x.sum(1, keepdim=True))
    curve.append(out.detach())
print(f"first {float(curve[0]):.6f} last {float(curve[-1]):.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
