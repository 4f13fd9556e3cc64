# expect-before: runs
# Logging done right: only the Python number of each loss is kept.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

losses = []
for it in range(ITERS):
    x = torch.randn(32, 20)
    y = torch.randint(0, 5, (32,))
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    print(f"{it} loss {loss.item():.6f}")

print("mean loss %.6f" % (sum(losses) / len(losses)))
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
