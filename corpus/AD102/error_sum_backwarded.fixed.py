# expect-before: runs
# The epoch's error is summed from the very value that is backwarded each
# step. Its name says nothing about losses; the backward proves it carries
# a graph, and the running sum keeps every step's graph until the epoch ends.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Sequential(nn.Linear(3, 10), nn.ReLU(), nn.Linear(10, 1))
sgd = torch.optim.SGD(net.parameters(), lr=0.02)
xs, ys = torch.randn(ITERS, 8, 3), torch.randn(ITERS, 8, 1)

for epoch in range(2):
    err_sum = 0.0
    for x, y in zip(xs, ys):
        err = (net(x) - y).abs().mean()
        sgd.zero_grad()
        err.backward()
        sgd.step()
        err_sum += (err / len(xs)).detach()
    print(f"epoch {epoch} err {float(err_sum):.6f}")

print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
