# expect-before: runs
# A project's own softmax helper (numerically stable, fixed last dim): not
# torch's F.softmax.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def softmax(x):
    e = (x - x.max(-1, keepdim=True)[0]).exp()
    return e / e.sum(-1, keepdim=True)


torch.manual_seed(0)
for it in range(ITERS):
    print("%.6f" % softmax(torch.randn(3, 5))[0, 0].item())
