# expect-before: grows
# A physics-informed network's residual takes derivatives through a small
# memoizing helper, made once at import, that keeps one lazily filled Jacobian
# per (output, input) pair. The pair is the key: tensors hash by identity, and
# every step makes a new network output, so every step adds an entry, which
# keeps the output and its create_graph=True gradients. Nothing clears the
# cache: every step's graph stays alive and memory grows. Reported without a
# fix (the cache must be cleared where a step ends).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class LazyJacobian:
    def __init__(self, outputs, inputs):
        self.outputs = outputs
        self.inputs = inputs
        self.rows = {}

    def row(self, i):
        if i not in self.rows:
            y = self.outputs[:, i:i + 1]
            self.rows[i] = torch.autograd.grad(y, self.inputs, torch.ones_like(y), create_graph=True)[0]
        return self.rows[i]


class JacobianMemo:
    def __init__(self):
        self.table = {}

    def get(self, outputs, inputs, i=0):
        pair = (outputs, inputs)
        if pair not in self.table:
            self.table[pair] = LazyJacobian(outputs, inputs)
        return self.table[pair].row(i)


derivatives = JacobianMemo()

net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
for step in range(ITERS):
    x = torch.rand(32, 1, requires_grad=True)
    u = net(x)
    du_dx = derivatives.get(u, x)
    loss = (du_dx - torch.cos(x)).pow(2).mean() + u[:1].pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} residual {loss.item():.6f}")
