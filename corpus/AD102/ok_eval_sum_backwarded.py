# expect-before: runs
# Not an evaluation: `evaluate` is called outside torch.no_grad(), but its
# summed loss is then backwarded (a second objective over held-out batches),
# so the sum must keep its graph.
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
        optimizer.zero_grad()
        (0.1 * val_loss).backward()
        optimizer.step()
        print(f"epoch {epoch} val {float(val_loss):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    train_data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    val_data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    fit(model, train_data, val_data, 2)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
