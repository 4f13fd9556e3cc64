# expect-before: runs
# `reference_level(net, batches)` runs the network over reference batches with
# gradients on, backwards nothing itself, and keeps the mean output in the
# module-level `anchor` (`global anchor`). The kept value is wanted with its
# graph: each training step adds a penalty built from `anchor` to its loss and
# backwards the sum, so the gradient flows through every reference batch. A
# detach would change the updates. No finding.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

anchor = None


def reference_level(net, batches):
    global anchor
    outs = []
    for x in batches:
        outs.append(net(x).mean())
    anchor = torch.stack(outs).mean()


net = nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
train_batches = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(3)]
reference = [torch.randn(8, 5) for _ in range(2)]

for step in range(ITERS):
    for x, y in train_batches:
        reference_level(net, reference)
        penalty = anchor ** 2
        loss = F.mse_loss(net(x), y) + 0.1 * penalty
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"step {step} loss {loss.item():.6f}")
