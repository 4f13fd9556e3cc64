# expect-before: runs
# Current code: comparisons give bool masks; uint8 tensors hold pixel data.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
img = torch.randint(0, 256, (3, 4, 4), dtype=torch.uint8)
for it in range(ITERS):
    x = torch.randn(3, 4, 4)
    mask = x > 0
    y = x.masked_fill(~mask, 0.0)
    bright = img.float() / 255.0
    print("%.6f %.6f %d" % (y.sum().item(), bright[mask].sum().item(), int(img.sum().item())))
