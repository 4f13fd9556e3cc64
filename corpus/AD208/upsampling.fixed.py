# expect-before: runs
# The upsampling helpers of 0.3 and their F.interpolate equivalents.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(1, 2, 3, 3)
a = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
b = F.interpolate(x, size=(5, 5))
c = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
d = F.interpolate(x, size=(4, 4), mode="bilinear", align_corners=True)
for name, t in (("bilinear", a), ("nearest", b), ("upsample", c), ("aligned", d)):
    print(name, tuple(t.shape), "%.6f %.6f" % (t.sum().item(), t[0, 0, 1].abs().sum().item()))
