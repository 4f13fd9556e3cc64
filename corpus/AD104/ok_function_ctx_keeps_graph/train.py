# expect-before: runs
# Backprop-in-forward to save memory: a custom autograd Function rebuilds the
# block's graph under enable_grad, takes the gradient of its penalty with
# retain_graph=True, and keeps `g` and `x` on `ctx`; its backward then
# differentiates `ctx.g` through that same graph. The graph leaves `forward`
# on the object the caller (autograd) handed in, so the retain is needed.
# No finding.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class PenaltyInForward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, penalty_fn, block, x, scale, *params):
        with torch.enable_grad():
            x = x.detach().requires_grad_(True)
            g = block(x)
            ctx.g = g
            ctx.x = x
            ctx.params = params
            penalty = penalty_fn(g, x, scale)
            grad_x, *grad_params = torch.autograd.grad(penalty, (x,) + params, retain_graph=True)
            ctx.save_for_backward(grad_x, *grad_params)
        return g.detach(), penalty.detach()

    @staticmethod
    def backward(ctx, grad_g, grad_penalty):
        grad_x, *grad_params = ctx.saved_tensors
        params = list(ctx.params)
        with torch.enable_grad():
            dg_x, *dg_params = torch.autograd.grad(ctx.g, [ctx.x] + params, grad_g)
        out_params = tuple(d + grad_penalty * p for d, p in zip(dg_params, grad_params))
        return (None, None, dg_x + grad_penalty * grad_x, None) + out_params


def smoothness(g, x, scale):
    return scale * (g - x).pow(2).mean()


def apply_block(penalty_fn, block, x, scale):
    return PenaltyInForward.apply(penalty_fn, block, x, scale, *block.parameters())


def train(steps):
    block = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
    head = nn.Linear(4, 1)
    opt = torch.optim.SGD([*block.parameters(), *head.parameters()], lr=0.05)
    for step in range(steps):
        x = torch.randn(5, 4, requires_grad=True)
        g, penalty = apply_block(smoothness, block, x, 0.5)
        loss = head(g).pow(2).mean() + 0.1 * penalty
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(step, f"{loss.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in block.parameters()):.6f}")


if __name__ == "__main__":
    train(ITERS)
