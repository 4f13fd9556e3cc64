# expect-before: error Expected dtype int32/int64 for index but got: Float
# A histogram of activations written for PyTorch 0.4: `idx / 2` on a
# LongTensor truncated then, so it could index; today it is a float tensor.
# The signed shift `/=` in place fails today too.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
hist = torch.zeros(5)
for it in range(ITERS):
    x = torch.rand(20)
    idx = (x * 10).long()
    bucket = torch.div(idx, 2, rounding_mode="trunc")
    hist.index_add_(0, bucket, torch.ones(20))
    shift = torch.LongTensor([it, -it])
    shift.div_(2, rounding_mode="trunc")
    print(" ".join("%.1f" % v for v in hist.tolist()), shift.tolist())
