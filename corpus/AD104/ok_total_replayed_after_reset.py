# expect-before: runs
# Gradient accumulation in a notebook-style script: the summed loss of a few
# batches is backwarded with retain_graph=True and the total is reset, but the
# script keeps the old total as `previous` and backwards a small share of it
# again with the next minibatch (a replay term). That later backward walks the
# retained graph, so the retain is needed.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
total = 0
previous = None
for step in range(2 * ITERS):
    total = total + net(torch.randn(8, 4)).pow(2).mean()
    if step % 2 == 1:
        opt.zero_grad()
        total.backward(retain_graph=True)
        if previous is not None:
            (0.1 * previous).backward()
        opt.step()
        print(f"{step} total {total.item():.6f}")
        previous = total
        total = 0

print(f"checksum {net.weight.sum().item() + net.bias.sum().item():.6f}")
