# expect-before: runs
# autodetach-test: unsafe
# A runner class keeps a learner (another file) whose `update` backwards,
# steps and hands back what it backwarded. The runner files each result on
# `self.history`, which only `__init__` makes and nothing empties, so every
# update's graph lives as long as the runner. That `update`'s result keeps a
# graph is inferred from learner.py's code, read through `self.learner`.
import os

import torch
import torch.nn as nn
from learner import Learner

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Runner:
    def __init__(self, net):
        self.learner = Learner(net)
        self.history = []

    def run(self, batches, epochs):
        for epoch in range(epochs):
            for x, y in batches:
                gap = self.learner.update(x, y)
                self.history.append(gap.detach())
            probes = []
            for x, y in batches:
                probes.append(self.learner.probe(x, y))
            print(f"epoch {epoch} probe {float(sum(probes)):.6f}")
        return self.history


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 12), nn.ReLU(), nn.Linear(12, 1))
data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)]
kept = Runner(net).run(data, 2)
print(f"kept {len(kept)} last {float(kept[-1]):.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
