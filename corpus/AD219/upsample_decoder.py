# expect-before: runs
# A 2018-style decoder: bilinear upsampling layers and a position ramp built
# with torch.range (both deprecated; same numbers after the fix).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
decoder = nn.Sequential(
    nn.Conv2d(2, 4, 3, padding=1),
    nn.UpsamplingBilinear2d(scale_factor=2),
    nn.Conv2d(4, 1, 3, padding=1),
    nn.UpsamplingNearest2d(scale_factor=2),
)
ramp = torch.range(0, 15) / 15  # 16 points, 0 to 1 inclusive
opt = torch.optim.SGD(decoder.parameters(), lr=0.05)
z = torch.randn(3, 2, 4, 4)
target = ramp.view(1, 1, 1, 16).expand(3, 1, 16, 16)
for it in range(ITERS):
    loss = (decoder(z) - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("%.6f" % loss.item())
print("checksum %.6f" % sum(p.sum().item() for p in decoder.parameters()))
