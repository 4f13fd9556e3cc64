# expect-before: runs
# Resuming: `load_state` (the project's checkpoints.py) hands back the model,
# the optimizer and the step and epoch counters read from a checkpoint with
# torch.load. `step += 1` counts optimizer steps: a number read back from a
# file, never a graph.
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

from checkpoints import load_state, save_state

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
path = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
save_state(path, model, optimizer, 0, 0)
model, optimizer, step, epoch = load_state(path, model, optimizer)
for ep in range(epoch, 2):
    for it in range(ITERS):
        x = torch.randn(8, 3)
        loss = F.mse_loss(model(x), x.sum(1, keepdim=True))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        print(f"{step} loss {loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
