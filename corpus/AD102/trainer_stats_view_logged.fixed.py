# expect-before: runs
# The log method a trainer's step calls works on a local name for the
# split's statistics: on the first batch it makes them and stores them on
# `self` (`self.statistics[split] = stat`), later it reads them back
# (`stat = self.statistics[split]`). Adding the loss into `stat["loss"]`
# adds it into `self.statistics`, which outlives the call: every batch's
# loss stays in the list with its graph nodes until the split starts again.
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
        self.statistics = {}

    def batch_step(self, x, y):
        out = self.model(x)
        loss = nn.functional.mse_loss(out, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.batch_loss = loss
        self.batch_mae = (out - y).abs().mean().item()
        self.end_of_batch_log("train")

    def end_of_batch_log(self, split):
        if self.ibatch == 0:
            stat = {"loss": {"values": []}, "mae": {"values": []}}
            self.statistics[split] = stat
        else:
            stat = self.statistics[split]
        stat["loss"]["values"] += [self.batch_loss.detach()]
        stat["mae"]["values"] += [self.batch_mae]

    def epoch_step(self, epoch):
        for self.ibatch, (x, y) in enumerate(self.batches):
            self.batch_step(x, y)
        stat = self.statistics["train"]
        loss = sum(v.item() for v in stat["loss"]["values"]) / len(self.batches)
        mae = sum(stat["mae"]["values"]) / len(self.batches)
        print(f"epoch {epoch} loss {loss:.6f} mae {mae:.6f}")


model = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.05),
                  [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(ITERS)])
for epoch in range(2):
    trainer.epoch_step(epoch)

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
