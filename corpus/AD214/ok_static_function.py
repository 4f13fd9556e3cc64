# expect-before: runs
# The current form: static forward/backward, called through .apply.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g


torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
for it in range(ITERS):
    loss = Square.apply(w).sum()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
    print("%.6f" % loss.item())
