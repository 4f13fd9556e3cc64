# expect-before: runs
# An emulator (built on emulator_base.py's class) that scales its inputs by a
# learned parameter (`self.log_scale`, read by its own method `_scaled`) once
# before a loop over noise samples, accumulates each sample's gradient and a
# penalty on the scaled inputs, then steps once. Every later backward walks
# that scaling again, so each retain is needed (without it the second sample
# fails): the prepared inputs carry a graph, and there is no finding.
import os

import torch
from torch import nn

from emulator_base import EmulatorBase

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Emulator(EmulatorBase):
    def __init__(self, n_in):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, 8), nn.Tanh(), nn.Linear(8, 1))
        self.log_scale = nn.Parameter(torch.zeros(n_in))

    def forward(self, x):
        return self.net(x)

    def _scaled(self, x):
        x = torch.as_tensor(x, dtype=torch.float32)
        return x * self.log_scale.exp()

    def fit_step(self, x, y, samples):
        opt = torch.optim.SGD(self.parameters(), lr=0.01)
        x = self._scaled(x)
        for k in range(samples):
            noisy = x + 0.1 * torch.randn_like(x)
            loss = (self(noisy) - y).pow(2).mean() / samples
            loss.backward(retain_graph=True)
        (1e-3 * x.pow(2).mean()).backward()  # keeps the scaled inputs small: walks the scaling again
        opt.step()
        return self


if __name__ == "__main__":
    torch.manual_seed(0)
    data = torch.randn(16, 3).tolist()
    target = torch.tensor([[sum(row)] for row in data])
    for step in range(ITERS):
        model = Emulator(3).fit_step(data, target, ITERS)
        print(step, f"{model.log_scale[step % 3].item():.6f}")
