# expect-before: runs
# autodetach-test: unsafe
# Backprop-in-forward: a custom autograd Function builds the block's graph
# under enable_grad and takes the gradient of its penalty with
# retain_graph=True; it keeps on `ctx` only cut copies of `g` and `x` (for a
# report) and the gradients, and its backward reads only the gradients. Unlike
# a Function that keeps `g` itself on `ctx`, nothing differentiates that graph
# again, so the retain keeps it alive for nothing. The penalty comes from a
# function handed in and reads arguments of `forward`: that the caller does
# not backward their graph again is inferred, so the fix is unsafe.
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
            ctx.g = g.detach()
            ctx.x = x.detach()
            penalty = penalty_fn(g, x, scale)
            grad_x, *grad_params = torch.autograd.grad(penalty, (x,) + params)
            ctx.save_for_backward(grad_x, *grad_params)
        return g.detach(), penalty.detach()

    @staticmethod
    def backward(ctx, grad_g, grad_penalty):
        grad_x, *grad_params = ctx.saved_tensors
        return (None, None, grad_penalty * grad_x, None) + tuple(grad_penalty * d for d in grad_params)


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
