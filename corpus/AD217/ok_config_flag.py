# expect-before: runs
# A module with its own `require_grad` option (a common configuration flag),
# which it maps onto requires_grad itself.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Embed(nn.Module):
    def __init__(self, n, require_grad=True):
        super().__init__()
        self.require_grad = require_grad
        self.weight = nn.Parameter(torch.randn(n, 2), requires_grad=require_grad)


torch.manual_seed(0)
e = Embed(5, require_grad=False)
for it in range(ITERS):
    print("%.6f %s %s" % (e.weight.sum().item(), e.require_grad, e.weight.requires_grad))
