# expect-before: runs
# autodetach-test: unsafe
# The step trainer of another file backwards `mse + penalty(net)`, the penalty
# a callable handed in from here. The loss it returns still carries its graph
# (its backward proves it; inferred from a summary of step_trainer.py), so
# the epoch total here keeps every step's graph.
import os

import torch
import torch.nn as nn
from step_trainer import PenalisedTrainer

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def l1(net):
    return 1e-3 * sum(p.abs().sum() for p in net.parameters())


net = nn.Sequential(nn.Linear(4, 12), nn.ReLU(), nn.Linear(12, 1))
trainer = PenalisedTrainer(net, torch.optim.SGD(net.parameters(), lr=0.05), l1)


def run_epoch(batches):
    total_loss = 0.0
    for x, y in batches:
        total_loss += trainer.train_step(x, y)
    return float(total_loss) / len(batches)


data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)]
for epoch in range(2):
    print(f"epoch {epoch} mean {run_epoch(data):.6f}")
