# expect-before: runs
# A random projection built before the loop from a plain tensor and a
# registered buffer: no trainable parameter is in its graph.
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class RandomFeatures(nn.Module):
    def __init__(self, dim, n_features):
        super().__init__()
        self.register_buffer("omega", torch.randn(dim, n_features))
        self.head = nn.Linear(2 * n_features, 1)

    def forward(self, x, proj):
        z = x @ proj
        return self.head(torch.cat([torch.cos(z), torch.sin(z)], dim=1))


torch.manual_seed(0)
model = RandomFeatures(4, 32)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
scale = torch.full((1, 32), 1.0 / math.sqrt(4))
proj = model.omega * scale
for it in range(ITERS):
    x = torch.randn(64, 4)
    y = torch.sin(x.sum(1, keepdim=True))
    loss = F.mse_loss(model(x, proj), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
