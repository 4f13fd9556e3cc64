# expect-before: runs
# autodetach-test: unsafe
# A worker's forward-and-collect helper (mi-prometheus' shape): it gets the
# model and the statistics collector as parameters, computes the loss, records
# it with `stat_col["loss"] = loss` and returns it; the training loop backwards
# what it returns. The collector's `__setitem__` appends the value to a list, so
# every step's graph is kept until the collector is emptied. The helper has no
# backward of its own: it is walked at its call because it stores into the
# caller's collector. What the collector keeps is inferred from its code, so
# passing `.detach()` is offered as unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class StatisticsCollector:
    def __init__(self):
        self.statistics = {}

    def add_statistic(self, key):
        self.statistics[key] = []

    def __setitem__(self, key, value):
        self.statistics[key].append(value)

    def __getitem__(self, key):
        return self.statistics[key]


class Worker:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
        self.training_stat_col = StatisticsCollector()
        self.training_stat_col.add_statistic("episode")
        self.training_stat_col.add_statistic("loss")

    def predict_evaluate_collect(self, model, batch, stat_col, episode):
        x, y = batch
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        stat_col["episode"] = episode
        stat_col["loss"] = loss
        return logits, loss

    def train(self, loader):
        self.model.train()
        for episode, batch in enumerate(loader):
            self.optimizer.zero_grad()
            logits, loss = self.predict_evaluate_collect(self.model, batch, self.training_stat_col, episode)
            loss.backward()
            self.optimizer.step()
        losses = self.training_stat_col["loss"]
        return sum(float(v) for v in losses) / len(losses)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    data = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
    worker = Worker(net)
    print(f"mean loss {worker.train(data):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
