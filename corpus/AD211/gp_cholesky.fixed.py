# expect-before: error has no attribute 'potrf'
# Gaussian-process regression in the style of 2018 tutorials: potrf/potrs for
# the Cholesky solve, chain_matmul for the predictive variance, torch.qr and
# matrix_rank as checks.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
x = torch.linspace(0, 1, 12, dtype=torch.float64).unsqueeze(1)
y = torch.sin(6 * x) + 0.05 * torch.randn(12, 1, dtype=torch.float64)
xs = torch.linspace(0, 1, 5, dtype=torch.float64).unsqueeze(1)
for it in range(ITERS):
    ell = 0.1 + 0.05 * it
    K = torch.exp(-(x - x.t()) ** 2 / (2 * ell ** 2)) + 1e-2 * torch.eye(12, dtype=torch.float64)
    Ks = torch.exp(-(xs - x.t()) ** 2 / (2 * ell ** 2))
    U = torch.linalg.cholesky(K).mH
    alpha = torch.cholesky_solve(y, U, upper=True)
    mean = Ks @ alpha
    Kinv = torch.cholesky_inverse(U, upper=True)
    var = 1.0 - torch.linalg.multi_dot([Ks, Kinv, Ks.t()]).diag()
    q, r = torch.linalg.qr(K)
    rank = torch.linalg.matrix_rank(K, hermitian=True)
    print(" ".join("%.6f" % v for v in mean.squeeze(1).tolist()),
          "%.6f %.6f %d" % (var.sum().item(), r.diag().abs().prod().log().item(), rank.item()))
