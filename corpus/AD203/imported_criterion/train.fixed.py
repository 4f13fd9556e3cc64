# expect-before: error invalid index of a 0-dim tensor
# autodetach-test: unsafe
# A 0.3-era regression loop whose loss module comes from the project's own
# losses.py and is read inline with `criterion(...).data[0]`. The module's
# result cannot be proven 0-dim across the import, so `.item()` is unsafe.
import torch
import torch.nn as nn

from losses import SmoothL1Sum

torch.manual_seed(0)
model = nn.Linear(4, 2)
criterion = SmoothL1Sum()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
xs = torch.randn(24, 4)
ys = torch.randn(24, 2)

for epoch in range(3):
    for i in range(0, 24, 8):
        optimizer.zero_grad()
        criterion(model(xs[i:i + 8]), ys[i:i + 8]).backward()
        optimizer.step()
    print(f"epoch {epoch} loss {criterion(model(xs), ys).item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
