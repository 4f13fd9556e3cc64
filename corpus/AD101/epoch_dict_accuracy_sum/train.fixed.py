# expect-before: grows
# autodetach-test: unsafe
# A trainer's epoch method returns a dict with its accuracy sum, built from
# what the model's `d_loss` (in models.py) returns beside the loss: a tensor
# computed on the same forward (the loss sum is kept as a float).
# The caller sums the accuracy over epochs with its graph, so every epoch's
# graphs stay alive. Detaching it where it is summed changes no update. The fix
# is unsafe because it rests on what was inferred: `d_loss` is a method of a
# class this file does not have, so its accuracy might be a number, and
# `.detach()` of a number raises.
import os

import torch

from models import Discriminator

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def _optimize_step(self, loss, total_loss):
        total_loss = loss.item() if total_loss is None else total_loss + loss.item()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return total_loss

    def _d_train_epoch(self, batches):
        total_loss = None
        total_acc = 0
        for real, fake in batches:
            loss, acc = self.model.d_loss(real, fake)
            total_loss = self._optimize_step(loss, total_loss)
            total_acc = (total_acc + acc).detach()
        self.last_loss = total_loss / len(batches)
        return {"train_acc": total_acc / len(batches)}

    def fit(self, batches, epochs):
        total_d_acc = 0
        for _ in range(epochs):
            loss_dict = self._d_train_epoch(batches)
            total_d_acc = (total_d_acc + loss_dict["train_acc"]).detach()
        return self.last_loss, total_d_acc / epochs


model = Discriminator()
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
batches = [(torch.randn(8, 3) + 1, torch.randn(8, 3) - 1) for _ in range(1)]
loss, acc = trainer.fit(batches, ITERS)
print("ITERS", ITERS, f"{loss:.6f}", f"{acc.item():.6f}", f"{model.net.weight.sum().item():.6f}")
