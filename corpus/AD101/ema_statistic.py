# expect-before: grows
# A running second moment of the activations, kept for logging: every
# iteration's graph (and the activations it saved) hangs off the running value.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
ema = torch.zeros(())
for it in range(ITERS):
    x = torch.randn(32, 10)
    target = x[:, :1] * 2.0
    out = model(x)
    ema = 0.9 * ema + 0.1 * out.pow(2).mean()
    loss = F.mse_loss(out, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f} ema {ema.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
