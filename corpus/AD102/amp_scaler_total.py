# expect-before: runs
# Mixed precision with a gradient scaler: `scaler.scale(loss).backward()` is
# the backward, `scaler.step(opt)` the step. `total += loss` keeps every
# iteration's graph alive; the total is only printed.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")

total = 0.0
for it in range(ITERS):
    x = torch.randn(16, 12)
    y = torch.randint(0, 4, (16,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    total += loss
    print(f"{it} loss {loss.item():.6f}")

print("mean loss %.4f" % (total / ITERS))
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
