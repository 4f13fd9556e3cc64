# expect-before: runs
# The validation loss comes from `model.evaluate(...)`, a method of the model's
# class in models.py that sums `loss.item()` values into a Python float: the
# list of validation losses and the best loss keep no graph, and a float has
# no `.detach()` (conversational-recommendations' `train_autorec.py`).
import os

import torch

from models import AutoRec, ReconstructionLoss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, optimizer, criterion, train_batches, val_batches, epochs):
    validation_losses = []
    best_loss = float("inf")
    for epoch in range(epochs):
        for x in train_batches:
            optimizer.zero_grad()
            loss = criterion(model(x), x)
            loss.backward()
            optimizer.step()
        val_loss = model.evaluate(val_batches, criterion)
        validation_losses.append(val_loss)
        best_loss = min(best_loss, val_loss)
        print(f"epoch {epoch} val {val_loss:.6f} best {best_loss:.6f}")
    return validation_losses


torch.manual_seed(0)
net = AutoRec(10)
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
data = [torch.rand(4, 10) for _ in range(3)]
train(net, opt, ReconstructionLoss(), data, data[:1], ITERS)
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
