# expect-before: runs
# The criterion (another file) returns a dict of weighted loss terms whose
# sum is backwarded; the epoch totals add each term as a number (`.item()`),
# so no step's graph outlives the step.
import os

import torch
import torch.nn as nn

from losses import Criterion

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, optimizer, batches, epochs):
    criterion = Criterion({"mse": 1.0, "l1": 0.5})
    for epoch in range(epochs):
        train_losses = {k: torch.tensor(0.0) for k in criterion.weights}
        for x, y in batches:
            optimizer.zero_grad()
            parts = criterion(model(x), y)
            loss = sum([v for v in parts.values()])
            loss.backward()
            optimizer.step()
            train_losses = {k: train_losses[k] + parts[k].item() * x.size(0) for k in train_losses.keys()}
        print(f"epoch {epoch} " + " ".join(f"{k} {v.item():.6f}" for k, v in train_losses.items()))


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)]
    train(model, optimizer, batches, 2)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
