# expect-before: runs
# A loss function of the project returns a dict of loss terms; the loop sums
# them into loss["total"], backwards that entry, and keeps every batch's dict
# for the epoch's means: every batch's graph stays alive until the epoch ends.
# Reported without a fix: `.detach()` of a dict would fail; keep detached
# tensors (or numbers) in it instead.
import os

import torch
import torch.nn as nn

from losses import compute_loss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_epoch(model, optimizer, batches):
    epoch_loss = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = compute_loss(model, x, y)
        loss["total"] = loss["mse"] + 0.5 * loss["l1"]
        loss["total"].backward()
        optimizer.step()
        epoch_loss.append(loss)
    return {k: sum(d[k].item() for d in epoch_loss) / len(epoch_loss) for k in epoch_loss[0]}


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)]
for epoch in range(2):
    means = train_epoch(model, optimizer, batches)
    print(f"{epoch} total {means['total']:.6f} mse {means['mse']:.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
