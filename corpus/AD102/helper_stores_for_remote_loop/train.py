# expect-before: runs
# autodetach-test: unsafe
# A worker's forward-and-collect helper whose callers live in another file
# (mi-prometheus' layout): `forward_and_collect` records the loss with
# `stat_col["loss"] = loss` and returns it. loop.py's Trainer, a Worker, calls it
# once per batch with its `StatisticsCollector` (collector.py: `__setitem__`
# appends to a list) and backwards the loss it returns, so the collector keeps
# every step's graph until it is emptied. Nothing in this file shows the graph
# or the list: both are inferred from the callers' code in other files, so
# storing `.detach()` is offered as an unsafe fix.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Worker:
    def forward_and_collect(self, model, batch, stat_col, episode):
        x, y = batch
        logits = model(x)
        loss = F.mse_loss(logits, y)
        stat_col["episode"] = episode
        stat_col["loss"] = loss
        return logits, loss


if __name__ == "__main__":
    import sys

    sys.modules["train"] = sys.modules["__main__"]  # loop.py's `from train import Worker` gets this file
    from loop import Trainer

    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    trainer = Trainer(net)
    for epoch in range(2):
        print(f"epoch {epoch} mean loss {trainer.train(data):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
