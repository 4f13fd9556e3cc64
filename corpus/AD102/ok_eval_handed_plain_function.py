# expect-before: runs
# `validate` sums what the first callable it is handed returns, but its caller
# hands it `[baseline]`, a plain function of tensors with no parameters (not
# a network): the sum is built from no graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def validate(models, loader, criterion):
    net = models[0]
    total = 0
    for x, y in loader:
        total += criterion(net(x), y)
    return total / len(loader)


def baseline(x):
    return x.mean(1, keepdim=True)


def fit(model, train_data, val_data, epochs):
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(epochs):
        for x, y in train_data:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        val_loss = validate([baseline], val_data, criterion)
        print(f"epoch {epoch} val {float(val_loss):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 1))
    train_data = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(ITERS)]
    val_data = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(ITERS)]
    fit(mlp, train_data, val_data, 2)
    print(f"checksum {sum(p.sum().item() for p in mlp.parameters()):.6f}")
