# expect-before: runs
# autodetach-test: unsafe
# A Trainer's `evaluate` method runs over the validation batches with
# gradients on and collects each batch's error in a list; when the epoch's
# mean error is the best so far it keeps it on the trainer
# (`self.best_error = error`). The mean hangs from every batch's graph, so
# the trainer keeps the whole pass's graphs alive after `evaluate` returns,
# through the training epochs that follow. Nothing backwards it. The fix
# (store it detached) is unsafe: that `evaluate` runs with gradients on is
# inferred from the calls this file shows.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self, model, train_batches, val_batches):
        self.model = model
        self.train_batches = train_batches
        self.val_batches = val_batches
        self.opt = torch.optim.Adam(model.parameters(), lr=0.01)
        self.best_error = None

    def train_epoch(self):
        for x, y in self.train_batches:
            self.opt.zero_grad()
            loss = (self.model(x) - y).abs().mean()
            loss.backward()
            self.opt.step()
        return loss.item()

    def evaluate(self):
        val_losses = []
        for x, y in self.val_batches:
            val_losses.append((self.model(x) - y).abs().mean())
        error = torch.stack(val_losses).mean()
        if self.best_error is None or error < self.best_error:
            self.best_error = error
        return float(error)

    def fit(self, epochs):
        for epoch in range(epochs):
            train_loss = self.train_epoch()
            error = self.evaluate()
            print(f"epoch {epoch} train {train_loss:.6f} val {error:.6f}")


batches = [(torch.randn(6, 3), torch.randn(6, 2)) for _ in range(5)]
trainer = Trainer(nn.Linear(3, 2), batches[:3], batches[3:])
trainer.fit(ITERS)
