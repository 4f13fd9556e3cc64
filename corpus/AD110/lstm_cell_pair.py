# expect-before: error Trying to backward through the graph a second time
# An online LSTMCell predictor that "repackages" both halves of its state
# with two bare `.detach()` statements.
import math
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

cell = nn.LSTMCell(1, 16)
readout = nn.Linear(16, 1)
optimizer = torch.optim.Adam([*cell.parameters(), *readout.parameters()], lr=1e-2)
series = torch.tensor([math.sin(0.25 * k) for k in range(ITERS + 1)])
h = torch.zeros(1, 16)
c = torch.zeros(1, 16)
for t in range(ITERS):
    h.detach()
    c.detach()
    h, c = cell(series[t].view(1, 1), (h, c))
    loss = (readout(h) - series[t + 1]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"{t} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in cell.parameters()):.6f}")
