# expect-before: runs
# An input-gradient penalty (double backprop): autograd.grad builds a graph
# of the gradient with create_graph=True and keeps the loss graph with
# retain_graph=True, then the total loss is backwarded once.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 24), nn.Tanh(), nn.Linear(24, 3))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    ce = nn.CrossEntropyLoss()
    for it in range(ITERS):
        x = torch.randn(16, 5, requires_grad=True)
        y = torch.randint(0, 3, (16,))
        loss = ce(net(x), y)
        (gx,) = torch.autograd.grad(loss, x, create_graph=True, retain_graph=True)
        total = loss + 0.1 * gx.pow(2).sum()
        opt.zero_grad()
        total.backward()
        opt.step()
        print(f"{it} loss {loss.item():.6f} total {total.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")


if __name__ == "__main__":
    main()
