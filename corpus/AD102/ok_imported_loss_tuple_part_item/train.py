# expect-before: runs
# The negative of imported_loss_tuple_part: the part is kept as a float.
import os

import torch
from torch import nn

from losses import total_loss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(model, opt, data):
    parts = []
    for x, y in data:
        opt.zero_grad()
        loss, mse, reg = total_loss(model(x), y, model)
        loss.backward()
        opt.step()
        parts.append(mse.item())
    return sum(float(p) for p in parts) / len(parts)


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
batches = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(ITERS)]
print(f"mean mse {fit(net, torch.optim.SGD(net.parameters(), lr=0.01), batches):.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
