# expect-before: runs
# Every softmax names its dimension.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
sm = nn.Softmax(dim=-1)
for it in range(ITERS):
    x = torch.randn(2, 3, 4)
    a = F.softmax(x, dim=-1)
    b = F.log_softmax(x, 2)
    c = torch.softmax(x, 1) + x.softmax(0) + sm(x)
    print("%.6f %.6f %.6f" % (a.sum().item(), b.exp().sum().item(), c.sum().item()))
