# expect-before: runs
# An exponential moving average of the error for the log: `step` converts a
# tensor to a number (`x.detach()... if torch.is_tensor(x) else x`); the else
# arm only ever sees numbers, so the object keeps no graph.
import os

import numpy as np
import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class EMAMetric:
    def __init__(self, gamma=0.9):
        self._val = 0.0
        self._gamma = gamma

    def step(self, x):
        x = x.detach().cpu().numpy() if torch.is_tensor(x) else x
        self._val = self._gamma * self._val + (1 - self._gamma) * x
        return self._val

    @property
    def val(self):
        return float(np.asarray(self._val))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    mae_metric = EMAMetric()
    for step in range(ITERS):
        x, y = torch.randn(8, 6), torch.randn(8, 1)
        pred = model(x)
        loss = ((pred - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        mae_metric.step((pred - y).abs().mean())
        print(f"{step} loss {loss.item():.6f} mae {mae_metric.val:.6f}")
    print(f"steps {ITERS} checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
