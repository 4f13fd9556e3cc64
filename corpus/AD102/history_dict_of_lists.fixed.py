# expect-before: runs
# autodetach-test: unsafe
# The training history is a dict of lists, one list per logged quantity; the
# loss list keeps every step's loss tensor and the graph nodes behind it.
# The dict is returned: that nothing else reads its lists as tensors with a graph
# is inferred, so `.detach()` is offered as an unsafe fix.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)


def train(iters):
    history = {"loss": [], "lr": []}
    for step in range(iters):
        x = torch.randn(32, 6)
        y = x[:, :1] * 0.5 - x[:, 1:2]
        loss = F.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history["loss"].append(loss.detach())
        history["lr"].append(opt.param_groups[0]["lr"])
    return history


hist = train(ITERS)
print("losses", " ".join(f"{v.item():.6f}" for v in hist["loss"]))
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
