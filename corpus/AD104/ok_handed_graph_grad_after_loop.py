# expect-before: runs
# A Neumann-series log-determinant estimator: `g` is handed in, and the loop
# takes vector-Jacobian products through its graph with retain_graph=True;
# after the loop the same graph is differentiated once more
# (`torch.autograd.grad(g, x, total, create_graph=True)`), so the retain on
# the loop's last iteration is needed too. The walk sees no graph in `g` (an
# argument, and the estimator is picked as a value, so no walk inlines it):
# only the names tie the later gradient to it. No finding.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def neumann_logdet(g, x, v, n_terms):
    vjp = v
    total = v
    for k in range(1, n_terms + 1):
        vjp = torch.autograd.grad(g, x, vjp, retain_graph=True)[0]
        total = total + (-1) ** k * vjp
    vjp_jac = torch.autograd.grad(g, x, total, create_graph=True)[0]
    return (vjp_jac * v).sum(1)


def power_logdet(g, x, v, n_terms):
    vjp = v
    total = 0
    for k in range(1, n_terms + 1):
        vjp = torch.autograd.grad(g, x, vjp, create_graph=True)[0]
        total = total + (-1) ** (k + 1) / k * (vjp * v).sum(1)
    return total


ESTIMATORS = {"neumann": neumann_logdet, "power": power_logdet}
estimator_fn = ESTIMATORS[os.environ.get("LOGDET", "neumann")]
net = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
opt = torch.optim.SGD(net.parameters(), lr=0.01)
for step in range(ITERS):
    x = torch.randn(3, 4).requires_grad_(True)
    g = 0.1 * net(x)
    v = torch.randn_like(x)
    logdet = estimator_fn(g, x, v, 3)
    loss = (g.pow(2).sum(1) - logdet).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
