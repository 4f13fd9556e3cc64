# expect-before: runs
# Notebook-style MAML: each task adapts a deep copy of the model, and the
# query loss is computed with the adapted copy. The copy's parameters are
# new leaves, so `meta_loss.backward()` sends nothing to `model`, and
# `meta_opt.step()` never changes it: the meta-model does not learn.
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
    support_loss = (fast(torch.randn(5, 4)) - 1).pow(2).mean()
    grads = torch.autograd.grad(support_loss, list(fast.parameters()), create_graph=True)
    for p, g in zip(fast.parameters(), grads):
        p.data -= 0.1 * g
    meta_loss = (fast(torch.randn(5, 4)) - 1).pow(2).mean()
    meta_opt.zero_grad()
    meta_loss.backward()
    meta_opt.step()
print(f"{meta_loss.item():.6f} {model[0].weight.sum().item():.6f}")
