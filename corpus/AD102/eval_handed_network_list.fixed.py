# expect-before: runs
# autodetach-test: unsafe
# `validate` has no backward and never calls a module method on what it is
# given, so nothing in it says that `net` is a network; its one caller
# does: `fit` hands it `[model]`, a module trained there. So `net(x)` builds a
# graph (gradients are on: the call is outside torch.no_grad()), and `total`
# keeps every validation batch's graph until the mean is printed. That `net`
# is a network is inferred from the caller, so the fix is offered as unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def validate(models, loader, criterion):
    net = models[0]
    total = 0
    for x, y in loader:
        total += criterion(net(x), y).detach()
    return total / len(loader)


def fit(model, train_data, val_data, epochs):
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(epochs):
        for x, y in train_data:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        val_loss = validate([model], val_data, criterion)
        print(f"epoch {epoch} val {float(val_loss):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 1))
    train_data = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(ITERS)]
    val_data = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(ITERS)]
    fit(mlp, train_data, val_data, 2)
    print(f"checksum {sum(p.sum().item() for p in mlp.parameters()):.6f}")
