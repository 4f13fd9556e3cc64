# expect-before: error Legacy autograd function with non-static forward method is deprecated
# A gradient-scaling layer (as in 2018 domain-adaptation code): the factor is
# an argument of forward, stored on self for backward.
import os

from torch import manual_seed, nn, randn
from torch.autograd import Function

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ScaleGrad(Function):
    """Identity forward, gradient times k backward."""

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.k, None


manual_seed(0)
feat = nn.Linear(3, 3)
head = nn.Linear(3, 1)
opt_params = list(feat.parameters()) + list(head.parameters())
x = randn(10, 3)
for it in range(ITERS):
    out = head(ScaleGrad.apply(feat(x), -0.5)).sum()
    for p in opt_params:
        p.grad = None
    out.backward()
    for p in opt_params:
        p.data.add_(p.grad, alpha=-0.1)
    print("%.6f %.6f" % (out.item(), feat.weight.grad.abs().sum().item()))
