# expect-before: runs
# Current spellings: arange, nn.Upsample, torch.amp; and Python's range.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
ramp = torch.arange(0, 8, dtype=torch.get_default_dtype())
w = torch.randn(1, 1, 2, 4, requires_grad=True)
for it in range(ITERS):
    with torch.amp.autocast("cpu", enabled=False):
        loss = (up(w).sum(2).flatten() - ramp).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
        w.grad = None
    print("%.6f" % loss.item())
