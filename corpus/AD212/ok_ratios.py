# expect-before: runs
# Divisions that were float divisions on every PyTorch: float tensors, a
# count taken out with .item(), sizes, and an explicit truncating division.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
total, correct = 0, 0
for it in range(ITERS):
    x = torch.randn(8, 3)
    y = torch.randint(0, 3, (8,))
    pred = x.argmax(1)
    correct += (pred == y).sum().item()
    total += y.size(0)
    half = torch.div(pred, 2, rounding_mode="trunc")
    scaled = x.sum(1) / x.size(1)
    print("%.6f %d %.6f" % (correct / total, half.sum().item(), scaled.mean().item()))
