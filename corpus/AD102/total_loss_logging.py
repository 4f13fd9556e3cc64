# expect-before: runs
# The classic logging accumulator: `total_loss += loss` turns the running total
# into a tensor that links every iteration's graph (the backward frees the
# saved tensors, but the nodes pile up). Only its value is ever used.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

total_loss = 0.0
for it in range(ITERS):
    x = torch.randn(32, 20)
    y = torch.randint(0, 5, (32,))
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total_loss += loss
    print(f"{it} loss {loss.item():.6f}")

print("mean loss %.4f" % (total_loss / ITERS))
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
