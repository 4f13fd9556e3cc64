# expect-before: runs
# A loss helper returns a term that is the number 0 when it is switched off
# and a tensor otherwise; the logging reads it back with
# `x.item() if hasattr(x, "item") else x`: the `else` arm runs only for the
# number, so the running sum keeps no graph.
import os

import torch
from torch import nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Linear(5, 2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)


def get_loss(x, y, include_reward):
    out = net(x)
    bce = F.binary_cross_entropy_with_logits(out[:, 0], y)
    mse = F.mse_loss(out[:, 1], y) if include_reward else 0
    return dict(bce=bce, mse=mse, loss=bce + mse)


cum_mse = 0
for it in range(ITERS):
    losses = get_loss(torch.randn(8, 5), torch.rand(8), it % 2 == 0)
    optimizer.zero_grad()
    losses["loss"].backward()
    optimizer.step()
    cum_mse += losses["mse"].item() if hasattr(losses["mse"], "item") else \
        losses["mse"]
    print(f"{it} loss {losses['loss'].item():.6f}")

print(f"cum_mse {cum_mse:.6f} checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
