# expect-before: runs
# Iterative refinement (HyperStyle's coach): each batch refines its output over
# a few steps, feeding the last output back in. From the second step on, and
# only when training, the carried output is made a new leaf before the step, so
# each step's backward stays within that step. The backward runs under the same
# `train` flag, which the method never rebinds: correct code.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Coach:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 8))
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.05)

    def refine(self, x, steps=3, train=False):
        y_hat = torch.zeros_like(x)
        for step in range(steps):
            if step > 0 and train:
                y_hat = y_hat.clone().detach().requires_grad_(True)
            y_hat = self.net(x + y_hat)
            loss = (y_hat - x).pow(2).mean()
            if train:
                loss.backward()
        return loss

    def fit(self, batches):
        for x in batches:
            self.opt.zero_grad()
            loss = self.refine(x, train=True)
            self.opt.step()
            print(f"train {loss.item():.6f}")

    def validate(self, x):
        with torch.no_grad():
            return self.refine(x).item()


coach = Coach()
coach.fit([torch.randn(4, 8) for _ in range(ITERS)])
print(f"val {coach.validate(torch.randn(4, 8)):.6f}")
