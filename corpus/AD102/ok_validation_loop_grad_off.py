# expect-before: runs
# The validation loops beside the training loop turn gradients off: one
# inside `with torch.no_grad()`, the other after `torch.set_grad_enabled(False)`
# as a statement. Their sums of the loss carry no graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(model, optimizer, criterion, train_batches, val_batches, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in train_batches:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        model.eval()
        val_loss = 0.0
        with torch.no_grad():
            for x, y in val_batches:
                loss = criterion(model(x), y)
                val_loss += loss
        print(f"epoch {epoch} val {val_loss / len(val_batches):.6f}")


def fit_switched(model, optimizer, criterion, train_batches, val_batches, epochs):
    for epoch in range(epochs):
        torch.set_grad_enabled(True)
        for x, y in train_batches:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        torch.set_grad_enabled(False)
        val_loss = 0.0
        for x, y in val_batches:
            val_loss += criterion(model(x), y)
        print(f"epoch {epoch} val {val_loss / len(val_batches):.6f}")
    torch.set_grad_enabled(True)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    train = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    val = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    fit(net, opt, nn.MSELoss(), train, val, 2)
    fit_switched(net, opt, nn.MSELoss(), train, val, 2)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
