# expect-before: runs
# autodetach-test: unsafe
# `evaluate` has no backward, so it is no training loop, but nothing turns
# gradients off: its only call in this file is outside torch.no_grad() and
# does not backward what it returns. Each validation batch's graph is built
# and summed into `total`, which keeps them all until the epoch's mean is
# printed. That no other file calls it under no_grad or backwards the result
# is inferred, so the fix is offered as unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def evaluate(net, loader, criterion):
    net.eval()
    total = 0.0
    for x, y in loader:
        total += criterion(net(x), y)
    net.train()
    return total / len(loader)


def fit(net, train_data, val_data, epochs):
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
    for epoch in range(epochs):
        for x, y in train_data:
            optimizer.zero_grad()
            criterion(net(x), y).backward()
            optimizer.step()
        val_loss = evaluate(net, val_data, criterion)
        print(f"epoch {epoch} val {float(val_loss):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    train_data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    val_data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    fit(model, train_data, val_data, 2)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
