# expect-before: runs
# A metric-learning trainer (Deep_Metric's shape): `train` gets the criterion as an argument
# (built by a loss factory through a dict the analysis does not follow); the criterion returns
# the loss and three statistics, which every loss class makes Python floats (`float(...)`,
# `.item()`). Only the loss is backwarded; the AverageMeters (a sibling package, star
# re-exported) are fed the statistics, which hold no graph: nothing to report.
import os

import torch
import torch.nn as nn

import losses
from trainer import train

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 4))
criterion = losses.create("Contrastive", margin=0.3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
loader = [(torch.randn(8, 6), torch.randint(0, 2, (8,))) for _ in range(ITERS)]
for epoch in range(2):
    stats = train(model, criterion, optimizer, loader, reg=1e-4)
    print("epoch", epoch, " ".join(f"{s:.4f}" for s in stats))
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
