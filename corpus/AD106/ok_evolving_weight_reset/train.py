# expect-before: runs
# The layer of another file keeps its evolving weight on `self`, and each
# epoch starts by resetting it with the layer's own reset method: no state
# crosses epochs, so nothing is reported.
import os

import torch
import torch.nn.functional as F

from evolving import EvolvingLinear

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Net(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.recurrent = EvolvingLinear(dim)
        self.head = torch.nn.Linear(dim, 1)

    def forward(self, x):
        return self.head(F.relu(self.recurrent(x)))


torch.manual_seed(0)
snapshots = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(3)]
model = Net(4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(ITERS):
    cost = 0
    model.recurrent.reset_weight()
    for x, y in snapshots:
        y_hat = model(x)
        cost = cost + torch.mean((y_hat - y) ** 2)
    cost = cost / len(snapshots)
    cost.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"{epoch} cost {cost.item():.6f}")
