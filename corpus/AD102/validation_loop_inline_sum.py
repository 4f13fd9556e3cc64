# expect-before: runs
# autodetach-test: unsafe
# The validation loop sits beside the training loop in the same function and
# backwards nothing, but nothing turns gradients off around it: each
# validation batch builds a graph through the model the training loop
# steps, and `val_loss` keeps every one of them until the epoch's mean is
# printed. The roles of the parameters (model, optimizer, criterion) are
# inferred from their use, so the fix is offered as unsafe.
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
        for x, y in val_batches:
            loss = criterion(model(x), y)
            val_loss += loss
        print(f"epoch {epoch} val {val_loss / len(val_batches):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    train = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    val = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    fit(net, opt, nn.MSELoss(), train, val, 2)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
