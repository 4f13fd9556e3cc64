# expect-before: grows
# Running averages updated through one loop over (name, value) pairs: the
# loss's average keeps every iteration's graph (memory grows), but `value` is
# a float on the other iteration (`acc` is already `.item()`), so
# `(0.9 * ema[name] + 0.1 * value).detach()` would raise AttributeError there.
# The rule reports it and offers no fix.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

ema = {"loss": 0.0, "acc": 0.0}
for it in range(ITERS):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    out = model(x)
    loss = nn.functional.mse_loss(out, y)
    acc = ((out > 0) == (y > 0)).float().mean().item()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    for name, value in [("loss", loss), ("acc", acc)]:
        ema[name] = 0.9 * ema[name] + 0.1 * value

print(f"ema acc {ema['acc']:.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
