# expect-before: runs
# A forecaster class whose recurrent cell lives in a vendored module
# (vendor/seqcells.py). After each epoch's training, `fit` scores the
# validation batches with gradients on and sums the squared error of the
# readout into `score` (`score = score + ...`): a whole reduction of the
# difference between the network's output and the target, kept like a loss
# total, so every validation graph stays alive until the score is printed.
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor"))
from seqcells import DecayCell  # noqa: E402

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def batches(n):
    return [(torch.randn(3, 5, 2), torch.rand(3, 5), torch.randn(3, 1)) for _ in range(n)]


class Forecaster:
    def __init__(self):
        self.cell = DecayCell(2, 6)
        self.readout = nn.Linear(6, 1)
        params = list(self.cell.parameters()) + list(self.readout.parameters())
        self.opt = torch.optim.Adam(params, lr=0.01)

    def fit(self, train, valid, epochs):
        for epoch in range(epochs):
            for x, gaps, y in train:
                hidden = self.cell(x, gaps)
                err = (self.readout(hidden[:, -1]) - y).pow(2).mean()
                self.opt.zero_grad()
                err.backward()
                self.opt.step()
            score = 0
            for x, gaps, y in valid:
                hidden = self.cell(x, gaps)
                score = (score + (self.readout(hidden[:, -1]) - y).pow(2).mean()).detach()
            print("epoch %d valid mse %.6f" % (epoch, score / len(valid)))


f = Forecaster()
f.fit(batches(ITERS), batches(ITERS), 2)
print("checksum %.6f" % sum(p.sum().item() for p in f.readout.parameters()))
