# expect-before: runs
# Integer tensors turned into floats before dividing, as the 1.x migration
# guides advised: nothing to report.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
for it in range(ITERS):
    counts = torch.randint(0, 10, (5,))
    probs = counts.float() / counts.sum().float()
    mean = counts.double().mean() / 2
    print(" ".join("%.6f" % v for v in probs.tolist()), "%.6f" % mean.item())
