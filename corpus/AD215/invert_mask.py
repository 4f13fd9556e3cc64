# expect-before: differs -2.727137 | -0.385273 -2.341864
# Splitting a batch with a uint8 mask and its inverse, written for PyTorch
# 1.0: `~keep` was `1 - keep` then. Today `~` is a bitwise NOT on uint8 (254,
# 255), so both halves select every element and the sums are wrong.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
x = torch.randn(10)
keep = torch.ByteTensor([1, 0, 1, 1, 0, 0, 1, 0, 1, 0])
drop = ~keep
for it in range(ITERS):
    print("%.6f | %.6f %.6f" % (x.sum().item(), x[keep].sum().item(), x[drop].sum().item()))
    x = x * 0.5
