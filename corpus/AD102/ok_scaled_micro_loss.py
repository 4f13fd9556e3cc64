# expect-before: runs
# Accumulation in the usual modern form: each micro-batch loss is scaled and
# backwarded at once; only floats are summed for the log.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Embedding(50, 16), nn.Flatten(), nn.Linear(16 * 4, 50))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
accum_steps = 2
running = 0.0
for step in range(ITERS):
    optimizer.zero_grad()
    for micro in range(accum_steps):
        tokens = torch.randint(0, 50, (8, 4))
        target = tokens[:, -1]
        loss = criterion(model(tokens), target) / accum_steps
        loss.backward()
        running += loss.item()
    optimizer.step()
    print(f"{step} loss {running / (step + 1):.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
