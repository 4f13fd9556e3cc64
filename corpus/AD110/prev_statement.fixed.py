# expect-before: error Trying to backward through the graph a second time
# A smoothness target from the previous step, "detached" by a bare
# `prev.detach()` statement that changes nothing.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    prev = torch.zeros(16, 2)
    for step in range(steps):
        x = torch.randn(16, 3)
        out = model(x)
        loss = F.mse_loss(out, x[:, :2]) + 0.1 * F.mse_loss(out, prev)
        opt.zero_grad()
        loss.backward()
        opt.step()
        prev = out
        prev = prev.detach()
        print(f"{step} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 12), nn.ReLU(), nn.Linear(12, 2))
    train(net, ITERS)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
