# expect-before: runs
# The same value-keyed cache of reciprocal vectors, reused only while `cell`
# does not require grad: an optimised cell recomputes them on every call, so
# each step's loss has its own graph and the cell gets its gradient.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Reciprocal:
    def __init__(self):
        self._cell_cache = torch.zeros(3, 3)
        self._vectors_cache = torch.zeros(1)

    def compute(self, cell):
        if not cell.requires_grad and torch.allclose(cell, self._cell_cache):
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
