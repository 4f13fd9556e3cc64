# expect-before: runs
# A per-step record kept as a dict (`record = {"loss": loss, ...}`) keeps the
# loss's graph alive in the history. The stored value is a dict, not a
# tensor: `.detach()` of it would fail, so the rule reports it and leaves the
# choice of what to detach inside to the author.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

history = []
for it in range(ITERS):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    record = {"loss": loss, "step": it}
    history.append(record)
    print(f"{it} loss {loss.item():.6f}")

print(f"records {len(history)}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
