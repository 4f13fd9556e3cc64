# expect-before: runs
# The nuclear norm and a p chosen at run time: torch.norm is deprecated, but
# which linalg function replaces it depends on p; reported, not rewritten.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
for it in range(ITERS):
    A = torch.randn(4, 3) * (it + 1)
    order = "fro" if it % 2 else 2
    print("%.6f %.6f" % (torch.norm(A, p="nuc").item(), torch.norm(A, p=order).item()))
