# expect-before: runs
# The same calculator, but the caller takes a second gradient of the energy
# after the @staticmethod helper: its retain_graph=True is needed.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Calculator:
    def __init__(self, model):
        self.model = model

    def calculate(self, positions, scale):
        positions = positions.clone().requires_grad_(True)
        energy = self.model(positions * scale).sum()
        forces = self._site_forces(positions, energy)
        virial = torch.autograd.grad(energy, scale)[0]
        return forces, virial

    @staticmethod
    def _site_forces(positions, energy):
        grad = torch.autograd.grad(energy, positions, retain_graph=True)[0]
        return -grad


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    calc = Calculator(model)
    total = 0.0
    for step in range(ITERS):
        scale = torch.ones(1, requires_grad=True)
        forces, virial = calc.calculate(torch.randn(5, 3), scale)
        total += forces.pow(2).sum().item() + virial.sum().item()
    print(f"iters {ITERS} total {total:.6f}")


if __name__ == "__main__":
    main()
