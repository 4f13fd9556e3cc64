# expect-before: error Trying to backward through the graph a second time
# The gradient norm is logged with torch.autograd.grad before the usual
# backward; the grad call frees the graph the backward needs.
import os

import torch
from torch import nn, optim
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, steps):
    opt = optim.Adam(model.parameters(), lr=1e-3)
    params = [p for p in model.parameters() if p.requires_grad]
    for step in range(steps):
        x = torch.randn(16, 8)
        y = torch.sin(x.sum(1, keepdim=True))
        loss = F.smooth_l1_loss(model(x), y)
        grads = torch.autograd.grad(loss, params)
        gnorm = torch.cat([g.flatten() for g in grads]).norm()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"{step} loss {loss.item():.6f} gnorm {gnorm.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(8, 16), nn.SiLU(), nn.Linear(16, 1))
    train(net, ITERS)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
