# expect-before: runs
# Dot-product attention from a 2018 seq2seq tutorial: the scores are 3-D
# (batch, tgt, src) and F.softmax without dim normalises over dim 0, the
# batch. The fix writes that choice out (dim=0) so it can be seen and
# changed; the numbers stay the author's.
import os

import torch
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
for it in range(ITERS):
    q = torch.randn(2, 3, 4)
    k = torch.randn(2, 5, 4)
    scores = torch.bmm(q, k.transpose(1, 2)) / 2.0
    w = F.softmax(scores, dim=0)
    print("%.6f %.6f" % (w[0].sum().item(), w[:, 0, 0].sum().item()))
