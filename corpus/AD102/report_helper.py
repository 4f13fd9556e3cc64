# expect-before: runs
# The per-step losses go to a report helper that only formats, compares and
# averages them, and to a logger: floats are enough everywhere they are read.
import logging
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
logger = logging.getLogger("train")


def report(values, every=2):
    worst = max(values)
    mean = sum(values) / len(values)
    logger.info("mean %.4f", mean)
    for i, v in enumerate(values[::every]):
        print(f"step {i * every} loss {v:.6f}")
    print(f"mean {mean:.6f} worst {worst:.6f} improved {values[-1] < values[0]}")


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 24), nn.ReLU(), nn.Linear(24, 4))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
step_losses = []
for it in range(ITERS):
    x = torch.randn(20, 10)
    y = x[:, :4].argmax(1)
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    step_losses.append(loss)

report(step_losses)
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
