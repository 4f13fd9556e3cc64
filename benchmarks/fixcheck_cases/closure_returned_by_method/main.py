# A gradient-matching attack in a class: `_make_closure` returns an optimizer
# closure that rebuilds the loss from a fresh forward, backwards it with
# retain_graph=True and returns it; `fit` hands it to `optimizer.step` and
# only compares and logs the returned loss. Nothing walks that graph again,
# so the retain keeps each step's graph alive for nothing. The closure reads
# the tensors `_make_closure` was given, and other files could call it: that
# nothing walks them again is inferred, so the fix is unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Inverter:
    def __init__(self, model):
        self.model = model
        self.log = []

    def _make_closure(self, optimizer, fake_x, target):
        def closure():
            optimizer.zero_grad()
            distance = (self.model(fake_x) - target).pow(2).mean()
            distance.backward(retain_graph=True)
            return distance

        return closure

    def fit(self, target, steps):
        fake_x = torch.randn(4, 6, requires_grad=True)
        optimizer = torch.optim.LBFGS([fake_x], lr=0.1, max_iter=3)
        best = float("inf")
        for i in range(steps):
            closure = self._make_closure(optimizer, fake_x, target)
            distance = optimizer.step(closure)
            best = min(best, distance.item())
            self.log.append(round(distance.item(), 6))
        return fake_x.detach(), best


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
for p in model.parameters():
    p.requires_grad_(False)
x, best = Inverter(model).fit(torch.randn(4, 2), ITERS)
print(f"best {best:.6f} checksum {x.sum().item():.6f}")
