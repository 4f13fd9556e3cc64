# expect-before: runs
# numpy's linalg has solve/eig/lstsq/qr/cholesky too; torch is imported
# alongside. None of these calls is torch's.
import os

import numpy as np
import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
rng = np.random.RandomState(0)
A = rng.randn(4, 4)
S = A @ A.T + np.eye(4)
for it in range(ITERS):
    x = np.linalg.solve(S, np.ones(4))
    w, v = np.linalg.eig(S)
    q, r = np.linalg.qr(S)
    L = np.linalg.cholesky(S)
    sol = np.linalg.lstsq(S, np.ones(4), rcond=None)[0]
    t = torch.from_numpy(x).sum() + torch.from_numpy(sol).sum()
    print("%.6f %.6f %.6f %.6f" % (t.item(), w.real.sum(), abs(r.diagonal()).prod(), L.trace()))
    S = S + 0.1 * np.eye(4)
