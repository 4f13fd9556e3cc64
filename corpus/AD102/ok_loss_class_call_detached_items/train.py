# expect-before: runs
# The loss object's `__call__` (loss.py) returns the total loss and its parts
# detached; the trainer keeps a running mean of the parts on `self` across the
# epoch. Only the first element carries a graph (YOLOv6's Trainer.print_details).
import os

import torch
import torch.nn as nn

from loss import ComputeLoss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        self.compute_loss = ComputeLoss(0.5)

    def train_epoch(self):
        self.mean_loss = torch.zeros(2)
        for self.step, (x, y) in enumerate(self.loader):
            self.train_in_steps(x, y)
            self.print_details()
        return self.mean_loss

    def train_in_steps(self, x, y):
        total_loss, loss_items = self.compute_loss(self.model(x), y)
        self.optimizer.zero_grad()
        total_loss.backward()
        self.optimizer.step()
        self.loss_items = loss_items

    def print_details(self):
        self.mean_loss = (self.mean_loss * self.step + self.loss_items) / (self.step + 1)


torch.manual_seed(0)
data = [(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(ITERS)]
trainer = Trainer(nn.Linear(4, 2), data)
for epoch in range(ITERS):
    mean = trainer.train_epoch()
    print(f"{epoch} l2 {mean[0].item():.6f} l1 {mean[1].item():.6f}")
