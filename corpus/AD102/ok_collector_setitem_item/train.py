# expect-before: runs
# A statistics collector whose `__setitem__` records numbers: a tensor given to it
# is turned into a Python float (`.item()`) before it is appended, so
# `stats["loss"] = loss` keeps no graph however long the lists grow. The
# training step gets the model, optimizer and collector as parameters.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Collector:
    def __init__(self, *keys):
        self.lists = {key: [] for key in keys}

    def __setitem__(self, key, value):
        if isinstance(value, torch.Tensor):
            value = value.item()
        self.lists[key].append(value)

    def __getitem__(self, key):
        return self.lists[key]

    def mean(self, key):
        return sum(self.lists[key]) / max(len(self.lists[key]), 1)


def fit(model, optimizer, loader, epochs=2):
    stats = Collector("loss", "grad_norm")
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.smooth_l1_loss(model(x), y)
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
            stats["loss"] = loss
            stats["grad_norm"] = norm
        print(f"epoch {epoch} mean loss {stats.mean('loss'):.6f}")
    return stats


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    fit(net, opt, data)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
