# expect-before: error Trying to backward through the graph a second time
# A periodic-cell helper caches the reciprocal vectors it computes from `cell`
# and reuses them while the next `cell` has the same values
# (`torch.allclose`). The cell is optimised here, so each step's `cell`
# requires grad: the second step gets back the first step's tensor, whose graph
# the first backward freed, and no gradient reaches its own cell. Reported
# without a fix, and what requires grad is inferred: whether callers pass a
# cell that requires grad is not seen in the class (torch-pme's Kvectors).
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Reciprocal:
    def __init__(self):
        self._cell_cache = torch.zeros(3, 3)
        self._vectors_cache = torch.zeros(1)

    def compute(self, cell):
        same_cell = torch.allclose(cell, self._cell_cache)
        if same_cell:
            vectors = self._vectors_cache
        else:
            vectors = 2 * torch.pi * torch.linalg.inv(cell).T
            self._cell_cache = cell.detach().clone()
            self._vectors_cache = vectors
        return vectors


def energy(vectors, positions):
    return torch.cos(positions @ vectors.T).sum()


reciprocal = Reciprocal()
positions = torch.randn(10, 3)
strain = torch.zeros(3, 3, requires_grad=True)
opt = torch.optim.SGD([strain], lr=0.0)  # lr 0: the cell's values stay the same, step after step
for it in range(ITERS):
    cell = 4.0 * torch.eye(3) + strain
    loss = energy(reciprocal.compute(cell), positions)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} energy {loss.item():.6f}")
print(f"strain grad {strain.grad.abs().sum().item():.6f}")
