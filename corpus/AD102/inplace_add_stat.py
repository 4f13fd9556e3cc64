# expect-before: runs
# autodetach-test: unsafe
# A device-side running loss (`avg_loss = torch.zeros(1)`) that the loop adds
# each step's loss into in place, `avg_loss.add_(loss)`, so that the host only
# reads it every few steps. The in-place add keeps the loss's graph: the
# tensor hangs from every step's graph until it is zeroed. That the argument
# is a network is inferred from how it is used: the fix is offered as unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, optimizer, batches, log_every=2):
    avg_loss = torch.zeros(1)
    logged = []
    for step, (x, y) in enumerate(batches, 1):
        loss = F.mse_loss(model(x), y)
        avg_loss.add_(loss)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % log_every == 0:
            logged.append(avg_loss.item() / log_every)
            avg_loss.zero_()
    return logged


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    print(" ".join(f"{v:.6f}" for v in train(net, opt, data)))
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
