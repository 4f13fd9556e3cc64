# expect-before: differs -1 -1 -1 0 0 0 0 0 0 0 1 1 1 | -2 -1 0 -3 -2 -1 0 1 2 3 0 1 2
# Positions on a grid 4 times coarser, written for PyTorch 1.0: integer `/`
# truncated toward zero, so -6 / 4 was -1 and the offsets were integers.
# Today it prints -1.5, and every offset is 0.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
for it in range(ITERS):
    pos = torch.arange(-6, 7) * torch.LongTensor([it + 1])
    coarse = torch.div(pos, 4, rounding_mode="trunc")
    offset = pos - coarse * 4
    print(" ".join(str(v) for v in coarse.tolist()), "|", " ".join(str(v) for v in offset.tolist()))
