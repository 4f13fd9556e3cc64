# expect-before: runs
# The tensor methods and the linalg functions: nothing to report.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
for it in range(ITERS):
    A = torch.randn(4, 3) * (it + 1)
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    print("%.6f %.6f %.6f" % (A.norm(dim=1).sum().item(), torch.linalg.vector_norm(A).item(), S.sum().item()))
