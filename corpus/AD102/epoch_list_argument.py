# expect-before: runs
# autodetach-test: unsafe
# A training function runs one epoch and appends the epoch's last loss to a
# list its caller creates once and hands to every epoch's call
# (`train_losses.append(loss)` after the batch loop). The loss was backwarded
# and stepped, but the list keeps it with its graph: one more graph per epoch,
# for a list only printed at the end. That the list outlives the call is
# inferred from its coming through an argument: the fix is offered as unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, optimizer, batches, train_losses, train_accuracy):
    correct = 0
    for x, y in batches:
        optimizer.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out, y)
        loss.backward()
        optimizer.step()
        correct += out.argmax(dim=1).eq(y).sum().item()
    train_losses.append(loss)
    train_accuracy.append(100.0 * correct / (len(batches) * 8))


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(3)]
    train_losses = []
    train_accuracy = []
    for epoch in range(ITERS):
        train(model, optimizer, batches, train_losses, train_accuracy)
    print(f"epochs {ITERS} last loss {float(train_losses[-1]):.6f} acc {train_accuracy[-1]:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
