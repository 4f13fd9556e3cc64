# expect-before: runs
# Legacy code that re-wraps the prediction's `.data` in a Variable before the
# loss: the graph to the model is cut and its optimizer steps on nothing.
import os

import torch
import torch.nn as nn
from torch.autograd import Variable

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
scale = nn.Parameter(torch.ones(1))
optimizer = torch.optim.SGD(list(model.parameters()) + [scale], lr=0.05)
criterion = nn.MSELoss()
for it in range(ITERS):
    x = torch.randn(32, 6)
    y = 3.0 * x[:, :1]
    pred = Variable(model(x).data)
    loss = criterion(scale * pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f} {scale.item():.6f}")
