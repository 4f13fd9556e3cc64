# expect-before: runs
# A module-level memo of derivatives keyed by a name string, set anew on every
# step (the same key each time): the old entry is replaced, so only the last
# step's gradient is held, and the next step overwrites it before its loss
# reads it. The key is no tensor, so nothing accumulates: no finding.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

_derivs = {}


def d_dx(name, u, x):
    _derivs[name] = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
    return _derivs[name]


model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
for it in range(ITERS):
    x = torch.linspace(0, 1, 16).unsqueeze(1).requires_grad_()
    u = model(x)
    loss = (d_dx("u_x", u, x) + u).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f}")
