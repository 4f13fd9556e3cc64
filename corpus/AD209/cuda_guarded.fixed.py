# expect-before: error SyntaxError
# The 0.3 way to overlap host-to-device copies: `.cuda(async=True)`.
# Guarded so that it runs on a machine without a GPU; `.type(..., async=)`
# and `.copy_(..., async=)` run on the CPU as well.
import torch

torch.manual_seed(0)
x = torch.randn(5, 2)
if torch.cuda.is_available():
    x = x.pin_memory().cuda(non_blocking=True)
y = x.type(torch.DoubleTensor, non_blocking=True)
z = torch.empty(5, 2)
z.copy_(x.cpu(), non_blocking = True)
print("%.6f %.6f" % (y.sum().item(), z.abs().sum().item()))
