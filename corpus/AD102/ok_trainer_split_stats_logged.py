# expect-before: runs
# The same trainer, whose log method files the loss it finds on
# `self.batch_loss` as a number (`.item()`) beside the per-split entry it
# makes on the first batch: the statistics hold no graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self, model, optimizer, batches):
        self.model = model
        self.optimizer = optimizer
        self.batches = batches
        self.stats = {}

    def batch_step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.batch_loss = loss
        self.end_of_batch_log("train")

    def end_of_batch_log(self, split):
        if self.ibatch == 0:
            self.stats[split] = []
        self.stats[split] += [self.ibatch]
        self.stats["loss"] += [self.batch_loss.item()]

    def epoch_step(self, epoch):
        self.stats["loss"] = []
        for self.ibatch, (x, y) in enumerate(self.batches):
            self.batch_step(x, y)
        mean = sum(self.stats["loss"]) / len(self.stats["train"])
        print(f"epoch {epoch} loss {mean:.6f}")


model = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.05),
                  [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(ITERS)])
for epoch in range(2):
    trainer.epoch_step(epoch)

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
