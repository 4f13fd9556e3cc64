# expect-before: error SyntaxError
# 0.4-era input pipeline: batches are moved with `.to(..., async=True)`.
# `async` is a reserved word since Python 3.7, so this file does not even
# compile; the device is the CPU here so that the fixed file runs anywhere.
import torch

torch.manual_seed(0)
device = torch.device("cpu")
batches = [torch.randn(4, 3) for _ in range(3)]
total = 0.0
for batch in batches:
    batch = batch.to(device, non_blocking=True)
    total += batch.pow(2).sum().item()
print("%.6f" % total)
