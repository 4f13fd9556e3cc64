# expect-before: runs
# loss_history_retained written correctly: the history keeps plain numbers and
# the loss itself is backwarded once, without retain_graph.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(tensors, loss_function, optimizer=torch.optim.Adam, tol=1e-6):
    optimizer = optimizer(tensors, lr=0.05)
    losses = []
    for it in range(ITERS):
        optimizer.zero_grad()
        loss = loss_function(*tensors)
        losses.append(loss.item())
        if len(losses) >= 2 and abs(losses[-2] - losses[-1]) < tol:
            break
        loss.backward()
        optimizer.step()
        print(f"{it} loss {losses[-1]:.6f}")
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
