# expect-before: runs
# The memo of the prediction weights is cleared by the module's train()
# override, so each round of fitting is followed by predictions from weights
# solved after it; the predictions are only read as numbers. State the class
# manages: no finding.
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

    def train(self, mode=True):
        if mode and hasattr(self, "_weights"):
            del self._weights
        return super().train(mode)


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

grid = torch.randn(8, 2)
for it in range(ITERS):
    model.train()
    loss = (model(xs) - ys).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        print(f"{it} best {model(grid).max().item():.6f}")
