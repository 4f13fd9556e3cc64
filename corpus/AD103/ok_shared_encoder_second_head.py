# expect-before: runs
# Two heads on one encoder, two optimizers: the encoder's optimizer (with
# the first head) and the second head's. The first loss never reaches the
# second head, so `opt_b.zero_grad()` clears nothing of it: no pass is
# kept apart from a model it runs through, and the second loss training
# the encoder as well (multi-task) is what the author wrote. Nothing to report.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(encoder, head_a, head_b, steps):
    opt_a = torch.optim.SGD(list(encoder.parameters()) + list(head_a.parameters()), lr=0.1)
    opt_b = torch.optim.SGD(head_b.parameters(), lr=0.1)
    for _ in range(steps):
        feats = encoder(torch.randn(8, 4))
        loss_a = head_a(feats).pow(2).mean()
        loss_b = (head_b(feats) - 1.0).pow(2).mean()
        opt_a.zero_grad()
        loss_a.backward(retain_graph=True)
        opt_b.zero_grad()
        loss_b.backward()
        opt_a.step()
        opt_b.step()
    return loss_a, loss_b


la, lb = train(nn.Linear(4, 6), nn.Linear(6, 1), nn.Linear(6, 1), ITERS)
print(f"{la.item():.6f} {lb.item():.6f}")
