# expect-before: runs
# A worker's forward-and-collect helper that records the loss into the
# statistics collector it is given (the collector appends it to a list). The
# training loop records a number (`loss.item()`) itself; the helper, which
# records the loss tensor, is only called for validation under
# `torch.no_grad()`, where the loss has no graph. Nothing to report.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class StatisticsCollector:
    def __init__(self):
        self.statistics = {}

    def __setitem__(self, key, value):
        self.statistics.setdefault(key, []).append(value)

    def __getitem__(self, key):
        return self.statistics[key]


def evaluate_collect(model, batch, stat_col):
    x, y = batch
    loss = F.cross_entropy(model(x), y)
    stat_col["loss"] = loss
    return loss


def fit(model, optimizer, train_data, valid_data):
    train_stats, valid_stats = StatisticsCollector(), StatisticsCollector()
    for x, y in train_data:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        train_stats["loss"] = loss.item()
    with torch.no_grad():
        for batch in valid_data:
            evaluate_collect(model, batch, valid_stats)
    return train_stats, valid_stats


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    data = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
    tr, va = fit(net, opt, data, data)
    print(f"train {sum(tr['loss']) / len(tr['loss']):.6f} valid {float(sum(va['loss'])) / len(va['loss']):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
