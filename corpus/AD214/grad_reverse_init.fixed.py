# expect-before: error Legacy autograd function with non-static forward method is deprecated
# autodetach-test: unsafe
# Gradient reversal for domain adaptation (the 2018 DANN style): the
# reversal weight is given to the constructor and kept on self.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * -ctx.lambd, None


torch.manual_seed(0)
feat = nn.Linear(4, 3)
domain = nn.Linear(3, 1)
params = list(feat.parameters()) + list(domain.parameters())
x = torch.randn(8, 4)
for it in range(ITERS):
    loss = domain(GradReverse.apply(feat(x), 0.25)).pow(2).mean()
    for p in params:
        p.grad = None
    loss.backward()
    for p in params:
        p.data.add_(p.grad, alpha=-0.1)
    print("%.6f %.6f" % (loss.item(), feat.weight.grad.sum().item()))
print("checksum %.6f" % sum(p.sum().item() for p in params))
