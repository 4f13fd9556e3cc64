# expect-before: runs
# First-order MAML done by hand: the query loss is backwarded through a deep
# copy, and its gradients are handed to the original's parameters
# (`p.grad = q.grad`) before the meta-optimizer steps. The copy is on
# purpose; nothing to report.
import copy
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for it in range(ITERS):
    fast = copy.deepcopy(model)
    inner_opt = torch.optim.SGD(fast.parameters(), lr=0.1)
    support_loss = (fast(torch.randn(5, 4)) - 1).pow(2).mean()
    inner_opt.zero_grad()
    support_loss.backward()
    inner_opt.step()
    meta_opt.zero_grad()
    query_loss = (fast(torch.randn(5, 4)) - 1).pow(2).mean()
    inner_opt.zero_grad()
    query_loss.backward()
    for p, q in zip(model.parameters(), fast.parameters()):
        p.grad = q.grad.clone()
    meta_opt.step()
print(f"{query_loss.item():.6f} {model[0].weight.sum().item():.6f}")
