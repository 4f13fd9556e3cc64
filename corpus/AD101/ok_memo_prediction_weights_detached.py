# expect-before: runs
# The memo of the prediction weights is kept detached: later predictions
# still carry the graph of the query point and of the kernel between query and
# inducing points, rebuilt every call, so the search loop's backward walks only
# this call's graph. No finding.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class SparseRegressor(nn.Module):
    def __init__(self, n_inducing, dim):
        super().__init__()
        self.inducing = nn.Parameter(torch.randn(n_inducing, dim))
        self.values = nn.Parameter(torch.randn(n_inducing, 1))
        self.log_scale = nn.Parameter(torch.zeros(()))

    def kernel(self, a, b):
        return torch.exp(-torch.cdist(a, b).pow(2) * self.log_scale.exp())

    def forward(self, x):
        k_xu = self.kernel(x, self.inducing)
        k_uu = self.kernel(self.inducing, self.inducing) + 1e-2 * torch.eye(self.inducing.shape[0])
        if not self.training:
            if not hasattr(self, "_weights"):
                self._weights = torch.linalg.solve(k_uu, self.values).detach()
            return k_xu @ self._weights
        return k_xu @ torch.linalg.solve(k_uu, self.values)


model = SparseRegressor(6, 2)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
xs = torch.randn(32, 2)
ys = torch.sin(xs.sum(1, keepdim=True))
for it in range(ITERS):
    loss = (model(xs) - ys).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} fit {loss.item():.6f}")

model.eval()
query = torch.zeros(1, 2, requires_grad=True)
search = torch.optim.SGD([query], lr=0.1)
for it in range(ITERS):
    value = -model(query).sum()
    search.zero_grad()
    value.backward()
    search.step()
    print(f"{it} query {query.sum().item():.6f}")
