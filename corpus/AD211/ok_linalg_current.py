# expect-before: runs
# Current torch.linalg code and a sympy-like object with its own .solve():
# nothing to migrate.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Matrix:
    def __init__(self, a):
        self.a = a

    def solve(self, b):
        return torch.linalg.solve(self.a, b)


torch.manual_seed(0)
A = torch.randn(4, 4, dtype=torch.float64)
S = A @ A.t() + torch.eye(4, dtype=torch.float64)
for it in range(ITERS):
    e, V = torch.linalg.eigh(S)
    x = Matrix(S).solve(torch.ones(4, 1, dtype=torch.float64))
    L = torch.linalg.cholesky(S)
    print("%.6f %.6f %.6f" % (e.sum().item(), x.sum().item(), L.diag().prod().item()))
    S = S + 0.1 * torch.eye(4, dtype=torch.float64)
