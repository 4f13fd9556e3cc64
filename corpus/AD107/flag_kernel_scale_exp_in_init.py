# expect-before: error backward through the graph a second time
# A Gaussian-process kernel takes its length scale in log space, but its
# __init__ keeps only `torch.exp(nn.Parameter(...))`: the exp is built once,
# from a parameter the module never registers. Every negative log likelihood
# divides by that same node, so the second backward walks a graph the first
# one freed (and no optimizer ever sees the length scale). Reported without
# a fix: the parameter has to move onto the module and the exp into forward.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class RBFKernel(nn.Module):
    def __init__(self, length_scale=1.0):
        super().__init__()
        self.length_scale = torch.exp(nn.Parameter(torch.log(torch.tensor(length_scale))))

    def forward(self, x1, x2):
        d = torch.cdist(x1 / self.length_scale, x2 / self.length_scale)
        return torch.exp(-0.5 * d.pow(2))


class GP(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_noise = nn.Parameter(torch.tensor(-2.0))
        self.kernel = RBFKernel(0.5)

    def nll(self, x, y):
        k = self.kernel(x, x) + torch.eye(x.size(0)) * self.log_noise.exp()
        chol = torch.linalg.cholesky(k)
        alpha = torch.cholesky_solve(y.unsqueeze(1), chol)
        return 0.5 * (y.unsqueeze(0) @ alpha).sum() + chol.diagonal().log().sum()


def fit(model, x, y, iters):
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for i in range(iters):
        opt.zero_grad()
        loss = model.nll(x, y)
        loss.backward()
        opt.step()
        print(f"nll {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.rand(12, 2)
    y = torch.sin(3 * x[:, 0]) + 0.1 * torch.randn(12)
    gp = GP()
    fit(gp, x, y, ITERS)
    print(f"noise {gp.log_noise.item():.6f} after {ITERS} steps")
