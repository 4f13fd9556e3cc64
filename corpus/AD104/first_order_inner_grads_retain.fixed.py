# expect-before: runs
# autodetach-test: unsafe
# First-order MAML: the inner loop adapts copies of the meta-parameters with
# plain gradients (no create_graph), `grads = autograd.grad(loss, fast, retain_graph=True)`,
# then `fast[i] = fast[i] - lr * grads[i]`. The grad stops at `fast`, so it walks only
# the forward this step built on `fast`; the next step runs a new forward, and the
# meta-loss backwards through `fast` and the meta-parameters, not through that
# forward. The retain keeps every inner step's activations for nothing. What the
# network function (a call the analysis does not read) builds from `fast` is
# inferred to keep none of that graph: the fix is unsafe.
import os

import torch
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def apply_net(x, params):
    h = torch.tanh(x @ params[0] + params[1])
    return h @ params[2]


class Learner:
    def __init__(self, first_order):
        self.first_order = first_order
        self.inner_steps = 3

    def adapt(self, x, y, params, lr):
        fast = [p + 0. for p in params]
        for _ in range(self.inner_steps):
            out = apply_net(x, fast)
            loss = F.mse_loss(out, y)
            if self.first_order:
                grads = torch.autograd.grad(loss, fast)
            else:
                grads = torch.autograd.grad(loss, fast, create_graph=True)
            for i in range(len(fast)):
                fast[i] = fast[i] - lr * grads[i]
        return fast


def main():
    torch.manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(3, 8) * 0.3), torch.nn.Parameter(torch.zeros(8)),
              torch.nn.Parameter(torch.randn(8, 1) * 0.3)]
    opt = torch.optim.SGD(params, lr=0.05)
    learner = Learner(first_order=True)
    total = 0.0
    for step in range(ITERS):
        x, y = torch.randn(16, 3), torch.randn(16, 1)
        fast = learner.adapt(x[:8], y[:8], params, 0.1)
        meta_loss = F.mse_loss(apply_net(x[8:], fast), y[8:])
        opt.zero_grad()
        meta_loss.backward()
        opt.step()
        total += meta_loss.item()
        print(f"{step} {meta_loss.item():.6f}")
    print(f"checksum {total:.6f} over {ITERS}")


if __name__ == "__main__":
    main()
