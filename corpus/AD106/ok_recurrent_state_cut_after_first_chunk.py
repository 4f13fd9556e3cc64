# expect-before: runs
# The hidden state starts at zeros for each sequence and is detached before
# every chunk but the first (`if k > 0: h = h.detach()`): the first chunk's h
# has no graph, later chunks cut it, so no chunk backwards into the previous
# chunk's freed graph (truncated BPTT over `range(n)` chunks).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

cell = nn.GRUCell(3, 5)
head = nn.Linear(5, 1)
opt = torch.optim.SGD(list(cell.parameters()) + list(head.parameters()), lr=0.1)

for it in range(ITERS):
    seq = torch.randn(3, 2, 3)
    h = torch.zeros(2, 5)
    for k in range(3):
        if k > 0:
            h = h.detach()
        h = cell(seq[k], h)
        loss = head(h).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"{it} {loss.item():.6f}")
print(f"{sum(p.sum().item() for p in head.parameters()):.6f}")
