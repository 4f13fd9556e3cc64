# expect-before: runs
# `retain_graph=True` added "just in case" to a plain regression loop: nothing
# backpropagates through this graph again, so it only keeps memory alive.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(5, 20), nn.ReLU(), nn.Linear(20, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for it in range(ITERS):
    x = torch.randn(32, 5)
    y = (x ** 2).sum(1, keepdim=True)
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
