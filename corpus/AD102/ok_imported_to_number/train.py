# expect-before: runs
# The running total goes through `to_number` from the project's utils.py,
# whose summary says that it cuts the graph (`.detach().item()`): nothing is
# kept across iterations.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from utils import to_number

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(net, loader, optimizer):
    running_loss = 0.0
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = F.mse_loss(net(x), y)
        loss.backward()
        optimizer.step()
        running_loss += to_number(loss)
        print(f"{i} loss {loss.item():.6f}")
    print(f"mean {running_loss / len(loader):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    train(model, data, opt)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
