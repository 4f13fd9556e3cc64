# expect-before: runs
# autodetach-test: unsafe
# Notebook-style regression: the model, picked from a table of classes by
# name, chunks the data with its own `chunk_pairs()` (declared abstract in
# the base class, a plain split in the subclass), and each chunk is fitted
# with its own forward and one backward. `retain_graph=True` keeps every
# chunk's graph for nothing. Which `chunk_pairs()` runs is inferred from the
# methods of that name in sight: unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Regressor(nn.Module):
    def chunk_pairs(self, x, y, n):
        raise NotImplementedError


class Linear2(Regressor):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x))).squeeze(-1)

    def chunk_pairs(self, x, y, n):
        return list(zip(x.chunk(n), y.chunk(n)))


torch.manual_seed(0)
MODELS = {"linear2": Linear2}
net = MODELS["linear2"]()
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for epoch in range(ITERS):
    x = torch.randn(40, 2)
    y = x[:, 0] - 2 * x[:, 1]
    running = 0.0
    for xb, yb in net.chunk_pairs(x, y, 4):
        err = nn.functional.mse_loss(net(xb), yb)
        opt.zero_grad()
        err.backward()
        opt.step()
        running += err.item()
    print(f"epoch {epoch} loss {running:.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
