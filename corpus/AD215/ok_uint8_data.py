# expect-before: runs
# uint8 used as data (a quantised image and a lookup table), never as a mask.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
for it in range(ITERS):
    img = (torch.rand(2, 3, 3) * 255).byte()
    table = torch.linspace(0, 1, 256)
    lut = table[img.long()]
    print("%.6f %d" % (lut.sum().item(), int(img.max().item())))
