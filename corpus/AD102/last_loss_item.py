# expect-before: runs
# The losses are kept in a list for a summary after training, which reads the
# last one with `.item()`: the list must hold tensors (`.item()` in the loop
# would make that line fail with "'float' object has no attribute 'item'"),
# only without their graphs.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

losses = []
for it in range(ITERS):
    x = torch.randn(24, 12)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss)
    print(f"{it} loss {loss.item():.6f}")

print(f"first {losses[0].item():.6f} last {losses[-1].item():.6f}")
print("mean loss %.6f" % (sum(losses) / len(losses)))
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
