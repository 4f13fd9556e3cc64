# expect-before: runs
# MetaBalance-style gradient scaling where the retain on the last task is
# needed: the loop keeps a moving average of each task's gradient norm
# (`norms[idx] = ...`), and after the loop the weighted sum of the same losses
# is backwarded through the shared trunk, walking the graph every task
# backward retained. No finding.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

trunk = nn.Sequential(nn.Linear(6, 8), nn.Tanh())
heads = nn.ModuleList([nn.Linear(8, 1) for _ in range(3)])
opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.05)
norms = [0.0, 0.0, 0.0]
for step in range(ITERS):
    x = torch.randn(5, 6)
    h = trunk(x)
    losses = [(head(h) - k).pow(2).mean() for k, head in enumerate(heads)]
    opt.zero_grad()
    for idx, loss in enumerate(losses):
        loss.backward(retain_graph=True)
        norms[idx] = 0.9 * norms[idx] + 0.1 * sum(p.grad.norm().item() for p in trunk.parameters())
        opt.zero_grad()
    weighted = sum(loss / (norms[idx] + 1e-5) for idx, loss in enumerate(losses))
    weighted.backward()
    opt.step()
    print(step, " ".join(f"{loss.item():.6f}" for loss in losses))
print(f"checksum {sum(p.sum().item() for p in trunk.parameters()):.6f} {sum(norms):.6f}")
