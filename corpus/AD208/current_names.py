# expect-before: runs
# Current names only: nothing to rename (nn.Upsample is current API).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
lin = nn.Linear(3, 3)
nn.init.kaiming_normal_(lin.weight)
up = nn.Upsample(scale_factor=2, mode="nearest")
x = torch.randn(1, 1, 2, 2)
y = torch.sigmoid(lin(torch.randn(2, 3))).sum() + F.interpolate(x, scale_factor=2).sum() + up(x).sum()
print("%.6f" % y.item())
