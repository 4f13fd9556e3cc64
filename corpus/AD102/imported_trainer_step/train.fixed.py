# expect-before: runs
# autodetach-test: unsafe
# The optimisation step lives in a trainer class of another file; the loop
# here only sums what train_step returns. That value still carries its
# graph (inferred from a summary of step_trainer.py), so the epoch total keeps
# every step's graph alive.
import os

import torch
import torch.nn as nn
from step_trainer import StepTrainer

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Sequential(nn.Linear(4, 12), nn.ReLU(), nn.Linear(12, 1))
trainer = StepTrainer(net, torch.optim.SGD(net.parameters(), lr=0.05))


def run_epoch(batches):
    total_loss = 0.0
    for x, y in batches:
        loss = trainer.train_step(x, y)
        total_loss += loss.detach()
    return float(total_loss) / len(batches)


data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)]
for epoch in range(2):
    print(f"epoch {epoch} mean {run_epoch(data):.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
