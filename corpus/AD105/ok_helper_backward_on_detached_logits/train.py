# expect-before: runs
# Notebook-style loop: `perturbation_penalty` (consistency.py) runs a backward of its own,
# but on a loss built from `scores.detach()` and a fresh forward pass: the graph of
# `scores` stays whole for the loss backwarded after it.
import os

import torch
import torch.nn.functional as F

from consistency import perturbation_penalty

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
net = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for step in range(ITERS):
    batch, labels = torch.randn(10, 3), torch.randn(10, 2)
    scores = net(batch)
    penalty = perturbation_penalty(net, batch, scores)
    total = F.mse_loss(scores, labels) + 0.5 * penalty
    opt.zero_grad()
    total.backward()
    opt.step()
print("%.6f" % total.item())
print("steps", ITERS)
