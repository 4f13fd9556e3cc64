# expect-before: runs
# Negative: a Trainer whose train_step adds a weight penalty from a sibling module (a sum
# over model.parameters() started from 0) and returns the loss it backwarded.
# train_epoch keeps only .item() of that loss, so no graph outlives its step.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from penalties import l2_penalty

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.history = []
        self.epoch_loss = 0

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = F.mse_loss(self.model(x), y) + l2_penalty(self.model)
        loss.backward()
        self.optimizer.step()
        return loss

    def train_epoch(self, batches):
        self.epoch_loss = 0
        for x, y in batches:
            loss = self.train_step(x, y)
            self.epoch_loss += loss.item()
            self.history.append(loss.item())
        return float(self.epoch_loss) / len(batches)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    trainer = Trainer(net, torch.optim.SGD(net.parameters(), lr=0.05))
    data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)]
    for epoch in range(2):
        print(f"epoch {epoch} mean {trainer.train_epoch(data):.6f}")
    print("last", float(trainer.history[-1]))
