# expect-before: runs
# autodetach-test: unsafe
# A regression emulator in the shape of surrogate-model libraries: `fit` makes
# its arguments ready once through `self._as_tensor`, a method of the base
# class in emulator_base.py (it converts and standardises the data, no
# parameters), then backwards each epoch's loss with retain_graph=True. The
# next epoch walks again only those prepared inputs, which carry no graph, so
# the retain keeps a dead graph per epoch. That the method of the base class
# runs no parameters is inferred (its code is not walked): the fix is unsafe.
import os

import torch
from torch import nn

from emulator_base import EmulatorBase

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Emulator(EmulatorBase):
    def __init__(self, n_in):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, 8), nn.Tanh(), nn.Linear(8, 1))

    def forward(self, x):
        return self.net(x)

    def fit(self, x, y, epochs):
        opt = torch.optim.Adam(self.parameters(), lr=0.01)
        x = self._as_tensor(x)
        y = self._as_tensor(y)
        for epoch in range(epochs):
            opt.zero_grad()
            loss = (self(x) - y).pow(2).mean()
            loss.backward(retain_graph=True)
            opt.step()
        return self


if __name__ == "__main__":
    torch.manual_seed(0)
    data = torch.randn(16, 3).tolist()
    target = [[sum(row)] for row in data]
    model = Emulator(3).fit(data, target, ITERS)
    for step in range(ITERS):
        print(step, f"{model.net[0].weight[0, step % 3].item():.6f}")
