# expect-before: runs
# autodetach-test: unsafe
# A notebook exported as a script: `dev_loss(f, batches)` is defined in one
# cell and called in a later one with the trained `model`, outside
# torch.no_grad(). The helper sums `f(x)`'s losses, so it keeps every dev
# batch's graph until it returns. That `f` is a network is inferred from the
# cell that calls it (the fix is unsafe).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def dev_loss(f, batches):
    acc = 0
    for x, y in batches:
        acc = acc + F.cross_entropy(f(x), y)
    return acc / len(batches)


model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
train = [(torch.randn(10, 4), torch.randint(0, 3, (10,))) for _ in range(ITERS)]
dev = [(torch.randn(10, 4), torch.randint(0, 3, (10,))) for _ in range(ITERS)]

for epoch in range(2):
    for x, y in train:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    dev_value = dev_loss(model, dev)
    print(f"epoch {epoch} dev {dev_value.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
