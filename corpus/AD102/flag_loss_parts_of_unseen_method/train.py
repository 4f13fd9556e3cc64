# expect-before: runs
# The IRIS trainer shape: `train_component(component, optimizer, ...)` gets a
# model and calls its `compute_loss`, whose class the function does not name.
# It returns a LossWithParts (losses.py), whose `parts` are numbers (`.item()`
# of each part), divided by the accumulation steps through `__truediv__`; the
# parts are summed into a dict for the logs. The analysis cannot tell that
# `value` is a number, so the sum is reported, but `.detach()` of a float
# raises: the fix is unsafe, saying what was inferred.
import os
from collections import defaultdict

import torch
import torch.nn as nn

from models import Agent

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.agent = Agent()
        self.optimizer = torch.optim.SGD(self.agent.regressor.parameters(), lr=0.05)

    def run(self, steps):
        return self.train_component(self.agent.regressor, self.optimizer, steps)

    def train_component(self, component: nn.Module, optimizer: torch.optim.Optimizer, steps: int, grad_acc_steps: int = 2):
        totals = defaultdict(float)
        for _ in range(steps):
            optimizer.zero_grad()
            for _ in range(grad_acc_steps):
                batch = (torch.randn(8, 4), torch.randn(8, 1))
                losses = component.compute_loss(batch) / grad_acc_steps
                losses.loss_total.backward()
                for name, value in losses.parts.items():
                    totals[f"train/{name}"] += value / steps
            torch.nn.utils.clip_grad_norm_(component.parameters(), 10.0)
            optimizer.step()
        return dict(totals)



metrics = Trainer().run(ITERS)
print(" ".join(f"{k} {v:.6f}" for k, v in sorted(metrics.items())), ITERS)
