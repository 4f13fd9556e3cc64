# expect-before: runs
# Current code: reduction= already, and an unrelated functools.reduce.
import functools
import operator

import torch
import torch.nn as nn

torch.manual_seed(0)
crit = nn.SmoothL1Loss(reduction="sum")
a, b = torch.randn(4), torch.randn(4)
print("%.6f" % crit(a, b).item(), functools.reduce(operator.mul, [2, 3, 4]))
