# expect-before: runs
# An inner loop whose grad is taken for the parameters handed in, on the first
# step, together with a feature map the caller built from them and backwards
# again afterwards: the first grad walks that caller-built map (it lies between
# the loss and the inputs), so the retain is what lets the caller's backward run.
# Left alone: the inputs are not made anew by the method.
import os

import torch
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def adapt(x, y, params, feats, lr):
    for _ in range(2):
        out = (feats * params[0]).sum(1, keepdim=True) + x @ params[1]
        loss = F.mse_loss(out, y)
        grads = torch.autograd.grad(loss, params, retain_graph=True)
        params = [p - lr * g for p, g in zip(params, grads)]
    return params


def main():
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(1, 4) * 0.3)
    v = torch.nn.Parameter(torch.randn(3, 1) * 0.3)
    opt = torch.optim.SGD([w, v], lr=0.05)
    total = 0.0
    for step in range(ITERS):
        x, y = torch.randn(8, 3), torch.randn(8, 1)
        feats = torch.tanh(x @ torch.ones(3, 4) * w)
        fast = adapt(x, y, [w, v], feats, 0.1)
        loss = F.mse_loss((feats * fast[0]).sum(1, keepdim=True) + x @ fast[1], y) + feats.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        print(f"{step} {loss.item():.6f}")
    print(f"checksum {total:.6f} over {ITERS}")


if __name__ == "__main__":
    main()
