# expect-before: runs
# autodetach-test: unsafe
# `loss_fn` comes from the project's own losses.py: its summary says that it
# returns its arguments' graph, so `running_loss += loss` keeps every
# iteration's graph alive. The model and optimizer are arguments of `train`,
# so their roles are inferred from usage (the fix is offered as unsafe).
import os

import torch
import torch.nn as nn

from losses import loss_fn, loss_parts

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(net, loader, optimizer):
    running_loss = 0.0
    running_mse = 0.0
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        out = net(x)
        loss = loss_fn(out, y)
        total, mse, l1 = loss_parts(out, y)
        (loss + total).backward()
        optimizer.step()
        running_loss += loss.detach()
        running_mse += mse.detach()
        print(f"{i} loss {loss.item():.6f}")
    print(f"mean {running_loss / len(loader):.6f} mse {running_mse / len(loader):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    train(model, data, opt)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
