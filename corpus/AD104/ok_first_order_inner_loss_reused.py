# expect-before: runs
# First-order inner loop whose caller also trains on the adaptation losses:
# each step's loss is kept in a list the method returns, and the caller backwards
# their sum with the meta-loss. The inner grad's retain_graph=True is what lets
# that backward walk each step's forward again. Left alone.
import os

import torch
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def apply_net(x, params):
    h = torch.tanh(x @ params[0] + params[1])
    return h @ params[2]


class Learner:
    def __init__(self):
        self.inner_steps = 3

    def adapt(self, x, y, params, lr):
        fast = [p + 0. for p in params]
        losses = []
        for _ in range(self.inner_steps):
            out = apply_net(x, fast)
            loss = F.mse_loss(out, y)
            grads = torch.autograd.grad(loss, fast, retain_graph=True)
            losses.append(loss)
            for i in range(len(fast)):
                fast[i] = fast[i] - lr * grads[i]
        return fast, losses


def main():
    torch.manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(3, 8) * 0.3), torch.nn.Parameter(torch.zeros(8)),
              torch.nn.Parameter(torch.randn(8, 1) * 0.3)]
    opt = torch.optim.SGD(params, lr=0.05)
    learner = Learner()
    total = 0.0
    for step in range(ITERS):
        x, y = torch.randn(16, 3), torch.randn(16, 1)
        fast, losses = learner.adapt(x[:8], y[:8], params, 0.1)
        meta_loss = F.mse_loss(apply_net(x[8:], fast), y[8:]) + 0.1 * sum(losses)
        opt.zero_grad()
        meta_loss.backward()
        opt.step()
        total += meta_loss.item()
        print(f"{step} {meta_loss.item():.6f}")
    print(f"checksum {total:.6f} over {ITERS}")


if __name__ == "__main__":
    main()
