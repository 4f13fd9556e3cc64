# expect-before: runs
# Running statistics and a prediction buffer updated under torch.no_grad():
# nothing stored there carries a graph.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
ema = torch.zeros(())
preds = []
prev = torch.zeros(32, 1)
for it in range(ITERS):
    x = torch.randn(32, 10)
    target = x[:, :1] * 2.0
    out = model(x)
    loss = F.mse_loss(out, target) + 0.01 * (out - prev).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        ema = 0.9 * ema + 0.1 * out.mean()
        prev = model(x)
        preds.append(prev)
    print(f"{it} loss {loss.item():.6f} ema {ema.item():.6f}")

print(f"preds {torch.cat(preds).mean().item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
