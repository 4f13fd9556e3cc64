# expect-before: grows
# A second metric (MAE) is logged next to the training loss; the list keeps
# every step's L1 node and the predictions it saved.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
maes = []
for step in range(ITERS):
    x = torch.randn(64, 8)
    y = torch.stack([x[:, 0] - x[:, 1], x[:, 2] * 0.5], dim=1)
    pred = net(x)
    loss = F.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    maes.append(F.l1_loss(pred, y))
    print(f"{step} loss {loss.item():.6f} mae {maes[-1]:.6f}")

print("mean mae %.4f" % (sum(maes) / len(maes)))
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
