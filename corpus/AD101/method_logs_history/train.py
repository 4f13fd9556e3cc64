# expect-before: grows
# autodetach-test: unsafe
# The model's `train_step` (in models.py) returns the loss and a logging value
# computed on the same forward. The loop keeps the logging value of every step
# in `history` with its graph, so every step's graph stays alive. Detaching it
# where it is stored changes no update. The fix is unsafe because it rests on
# what was inferred: `train_step` is a method of a class this file does not
# have, so the logging value might be a dict or a number, and `.detach()` of
# those raises.
import os

import torch

from models import Regressor

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = Regressor()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
history = []
for step in range(ITERS):
    batch = (torch.randn(8, 3), torch.randn(8, 1))
    loss, err = model.train_step(batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history.append(err)
print("ITERS", ITERS, [round(e.item(), 4) for e in history])
