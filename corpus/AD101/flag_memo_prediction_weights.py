# expect-before: error Trying to backward through the graph a second time
# A sparse kernel regressor memoizes, on its first prediction in eval mode,
# the weights it solves from its learned inducing points, values and length
# scale, and every later prediction reuses them. A search loop that follows
# the gradient of the predicted value with respect to the query point
# backwards through the memo again on its second step, after the first
# backward freed its graph. Reported without a fix: the memo is computed once
# and never cleared, so it also keeps weights from before any later training.
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
                self._weights = torch.linalg.solve(k_uu, self.values)
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
