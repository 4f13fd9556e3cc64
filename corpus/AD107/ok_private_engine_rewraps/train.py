# expect-before: runs
# The Opacus shape: the model, optimizer and data loader go through
# `privacy_engine.make_private(module=..., optimizer=..., data_loader=...)`
# once, before the loop, and come back wrapped under the same names (a small
# stand-in engine in privacy.py, so that the case runs without the package).
# The call is given a model, but what it hands back are those objects, not a
# forward's output: no graph is built before the loop, nothing is reported.
import os

import torch
import torch.nn as nn

from privacy import PrivacyEngine

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
data = torch.utils.data.TensorDataset(torch.randn(4 * ITERS, 4), torch.randn(4 * ITERS, 1))
train_loader = torch.utils.data.DataLoader(data, batch_size=4)
privacy_engine = PrivacyEngine()
model, optimizer, train_loader = privacy_engine.make_private(
    module=model, optimizer=optimizer, data_loader=train_loader, noise_multiplier=0.01)
total = 0.0
for x, y in train_loader:
    optimizer.zero_grad()
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    optimizer.step()
    total += loss.item()
print(f"{total:.6f} {ITERS}")
