# expect-before: runs
# autodetach-test: unsafe
# A calculator class takes an energy's gradient in a @staticmethod helper it
# calls through `self`; the helper retains the graph, but nothing takes a
# gradient of that energy after it. Unsafe: that no caller out of sight hands
# in positions whose graph it backwards again is inferred.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Calculator:
    def __init__(self, model):
        self.model = model
        self.results = {}

    def calculate(self, positions):
        positions = positions.clone().requires_grad_(True)
        energy = self.model(positions).sum()
        self.results["energy"] = energy.item()
        forces = self._forces(positions, energy)
        self.results["forces"] = forces.detach()

    @staticmethod
    def _forces(positions, energy):
        grad = torch.autograd.grad(energy, positions, retain_graph=True)[0]
        return -grad


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    calc = Calculator(model)
    total = 0.0
    for step in range(ITERS):
        calc.calculate(torch.randn(5, 3))
        total += calc.results["forces"].pow(2).sum().item() + calc.results["energy"]
    print(f"iters {ITERS} total {total:.6f}")


if __name__ == "__main__":
    main()
