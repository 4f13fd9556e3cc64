# expect-before: grows
# Notebook-style script: a module-level dict memoizes first derivatives by the
# (output, input) tensors they were taken of, so a loss that needs du/dx twice
# computes it once. The key is made of tensors, which hash by identity: each
# step's new network output adds an entry holding its create_graph=True
# gradient, and nothing ever empties the dict, so every step's graph stays
# alive. Reported without a fix.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

_first_derivatives = {}


def d_dx(u, x):
    if (u, x) not in _first_derivatives:
        _first_derivatives[(u, x)] = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
    return _first_derivatives[(u, x)]


model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
for it in range(ITERS):
    x = torch.linspace(0, 1, 16).unsqueeze(1).requires_grad_()
    u = model(x)
    loss = (d_dx(u, x) + u).pow(2).mean() + (d_dx(u, x)[0] - 1).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f}")
