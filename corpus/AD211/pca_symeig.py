# expect-before: error deprecated since version 1.9 and is now removed
# PCA whitening as written in 2018: the covariance eigendecomposition with
# torch.symeig, then a least-squares check with torch.solve.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
X = torch.randn(64, 5, dtype=torch.float64) @ torch.randn(5, 5, dtype=torch.float64)
for it in range(ITERS):
    Xc = X - X.mean(0, keepdim=True)
    cov = Xc.t() @ Xc / (X.size(0) - 1)
    e, V = torch.symeig(cov, eigenvectors=True)
    W = V @ torch.diag(e.rsqrt()) @ V.t()
    Z = Xc @ W
    # Solve cov * b = 1 as a sanity check on the conditioning.
    b, _ = torch.solve(torch.ones(5, 1, dtype=torch.float64), cov)
    print("%.6f %.6f %.6f" % (e.sum().item(), Z.t().mm(Z).trace().item(), b.abs().sum().item()))
    X = X + 0.1 * Z
print("%.6f" % X.abs().sum().item())
