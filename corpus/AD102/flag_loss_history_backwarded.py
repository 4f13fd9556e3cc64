# expect-before: runs
# A fitting helper appends each loss to its history and backwards the newest
# entry with retain_graph=True: the history keeps every iteration's graph
# alive. Appending `.detach()` would break `losses[-1].backward()`, so this is
# reported without a fix (keep a detached history, backward the loss itself).
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(tensors, loss_function, optimizer=torch.optim.Adam, tol=1e-6):
    optimizer = optimizer(tensors, lr=0.05)
    losses = []
    for it in range(ITERS):
        optimizer.zero_grad()
        losses.append(loss_function(*tensors))
        if len(losses) >= 2 and abs(losses[-2].item() - losses[-1].item()) < tol:
            break
        losses[-1].backward(retain_graph=True)
        optimizer.step()
        print(f"{it} loss {losses[-1].item():.6f}")
    return tensors


def loss_of(u, v):
    target = torch.linspace(-1, 1, 64).reshape(8, 8)
    return ((torch.tanh(u @ v) - target) ** 2).mean()


if __name__ == "__main__":
    torch.manual_seed(0)
    u = torch.randn(8, 3, requires_grad=True)
    v = torch.randn(3, 8, requires_grad=True)
    fit([u, v], loss_of)
    print(f"checksum {u.sum().item() + v.sum().item():.6f}")
