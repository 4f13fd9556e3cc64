# expect-before: runs
# Truncated BPTT through a trainer object of another file, with the cut inside
# the trainer: `loss(x, y, h)` detaches the state it is handed before it runs
# the model, so each chunk's backward stops at the chunk's start. Nothing to
# report.
import os

import torch

from trainer import StreamTrainer

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

trainer = StreamTrainer()
optimizer = torch.optim.SGD(trainer.parameters(), lr=0.1)
stream = torch.randint(0, 11, (ITERS * 5 + 1, 3))
h = torch.zeros(1, 3, 16)
for i in range(ITERS):
    x, y = stream[i * 5:(i + 1) * 5], stream[i * 5 + 1:(i + 1) * 5 + 1]
    optimizer.zero_grad()
    loss, h = trainer.loss(x, y, h)
    loss.backward()
    optimizer.step()
    print(f"{i} loss {loss.item():.6f}")
