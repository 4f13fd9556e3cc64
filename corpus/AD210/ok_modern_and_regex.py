# expect-before: runs
# Current signatures, and `sub`/`add` methods that are not torch's: nothing to do.
import os
import re

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
w = torch.randn(5, requires_grad=True)
lr = 0.1
seen = set()
pattern = re.compile("[0-9]+")
for step in range(ITERS):
    loss = (w ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w.add_(w.grad, alpha=-lr)
        w.grad.zero_()
    seen.add(-step)
    print(pattern.sub("#", "step %d" % step), "loss %.6f" % loss.item())
print("checksum %.6f" % w.sum().item(), len(seen))
