# expect-before: runs
# autodetach-test: unsafe
# A statistics collector from the project's collector.py: `stat_col[key] = value`
# calls its `__setitem__`, which appends the value to that key's list. The trainer
# keeps the collector on `self` and records the loss tensor every step, so the
# lists keep every step's graph until the collector is emptied. What the
# collector keeps is inferred from its method's code in another file: passing
# `.detach()` is offered as an unsafe fix.
import os

import torch
import torch.nn as nn

from collector import StatisticsCollector

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        self.stat_col = StatisticsCollector()
        self.stat_col.add_statistic("episode")
        self.stat_col.add_statistic("loss")

    def train(self, loader):
        crit = nn.MSELoss()
        for episode, (x, y) in enumerate(loader):
            self.optimizer.zero_grad()
            loss = crit(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.stat_col["episode"] = episode
            self.stat_col["loss"] = loss
        mean = sum(float(v) for v in self.stat_col["loss"]) / len(self.stat_col["loss"])
        self.stat_col.empty()
        return mean


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    trainer = Trainer(net)
    for epoch in range(2):
        print(f"epoch {epoch} mean loss {trainer.train(data):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
