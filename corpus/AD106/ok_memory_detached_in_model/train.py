# expect-before: runs
# Segments of a batch are fed in turn and each memory the model returns goes
# into the next segment. The model (memory_model.py) returns the memory
# already detached, so no graph crosses segments: nothing is reported.
import os

import torch

from memory_model import MemoryModel

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
model = MemoryModel(4)
optim = torch.optim.Adam(model.parameters(), lr=1e-2)
for i in range(ITERS):
    data = torch.randn(3, 6, 4)
    memories = None
    total = 0.0
    for segment in data:
        loss, memories = model(segment, segment.flip(0), memories=memories)
        total += loss.item()
        (loss / len(data)).backward()
    optim.step()
    optim.zero_grad()
    print(f"{i} loss {total:.6f}")
