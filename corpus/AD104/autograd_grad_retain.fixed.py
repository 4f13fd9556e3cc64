# expect-before: runs
# A hand-written SGD loop with torch.autograd.grad; retain_graph=True keeps a
# graph that nothing uses after the gradients are taken.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(steps, lr=0.1):
    torch.manual_seed(0)
    w = torch.randn(6, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    true_w = torch.linspace(-1.0, 1.0, 6).unsqueeze(1)
    for step in range(steps):
        x = torch.randn(40, 6)
        y = x @ true_w
        loss = ((torch.tanh(x @ w + b) - torch.tanh(y)) ** 2).mean()
        gw, gb = torch.autograd.grad(loss, [w, b])
        with torch.no_grad():
            w -= lr * gw
            b -= lr * gb
        print(f"{step} loss {loss.item():.6f}")
    return w, b


if __name__ == "__main__":
    w, b = fit(ITERS)
    print(f"checksum {w.sum().item() + b.sum().item():.6f}")
