# expect-before: runs
# torch.svd as 2018 code used it: the singular vectors of a batch covariance
# for ZCA whitening (gradients through U and S), an indexed read of V and the
# named field U. linalg.svd returns Vh, so the fix transposes it back.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
model = nn.Linear(5, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(32, 5)
for it in range(ITERS):
    h = model(x)
    h = h - h.mean(0)
    cov = h.t() @ h / h.shape[0] + 1e-3 * torch.eye(4)
    U, S, V = torch.svd(cov)
    white = h @ U @ torch.diag(S.rsqrt()) @ V.t()
    loss = (white[:, 0] - x[:, 0]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("%.6f %.6f" % (loss.item(), S.sum().item()))
W = model.weight.detach()
right = torch.svd(W)[2]
left = torch.svd(W, some=False).U
print(tuple(right.shape), tuple(left.shape), "%.6f" % (right.abs().sum() + left.abs().sum()).item())
