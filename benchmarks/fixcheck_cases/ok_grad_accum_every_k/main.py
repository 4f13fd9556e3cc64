# Gradient accumulation: backward per micro-batch (scaled), optimizer step
# and zero_grad every `accum` batches, running loss logged with .item().
# Correct: no finding, no change.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
accum = 3
running = 0.0
opt.zero_grad()
for i in range(12):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    loss = F.cross_entropy(model(x), y) / accum
    loss.backward()
    running += loss.item()
    if (i + 1) % accum == 0:
        opt.step()
        opt.zero_grad()
print(running)
