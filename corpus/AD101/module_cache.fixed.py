# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A module mixes in its output from the previous call, cached on `self`;
# the cache still carries the previous iteration's graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class SmoothedHead(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.proj = nn.Linear(dim_in, dim_out)
        self.last = torch.zeros(dim_out)

    def forward(self, x):
        y = torch.tanh(self.proj(x)).mean(0) + 0.5 * self.last
        self.last = y.detach()
        return y


torch.manual_seed(0)
head = SmoothedHead(5, 3)
opt = torch.optim.SGD(head.parameters(), lr=0.1)
for it in range(ITERS):
    x = torch.randn(8, 5)
    target = torch.ones(3)
    loss = (head(x) - target).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in head.parameters()):.6f}")
