# expect-before: runs
# A trainer keeps a queue of past embeddings (stored detached) and a flag on itself; its loss
# module (losses.py) returns the flag it was handed beside the loss. The flag is the trainer's
# own `True`, handed back as it came: storing it keeps no graph, and it has no `.detach()`.
import os

import torch
import torch.nn as nn

from losses import QueueLoss

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.encoder = nn.Linear(6, 4)
        self.prototypes = nn.Linear(4, 3, bias=False)
        self.criterion = QueueLoss(temperature=0.1)
        self.optimizer = torch.optim.SGD(list(self.encoder.parameters()) + list(self.prototypes.parameters()),
                                         lr=0.1)
        self.queue = torch.zeros(8, 4)
        self.use_the_queue = True

    def step(self, x):
        embedding = self.encoder(x)
        output = self.prototypes(embedding)
        loss, use_queue = self.criterion(output, self.prototypes.weight, self.queue, use_queue=self.use_the_queue)
        self.queue = torch.cat((embedding.detach(), self.queue[:-len(embedding)]))
        self.use_the_queue = use_queue
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


trainer = Trainer()
total = 0.0
for _ in range(ITERS):
    total += trainer.step(torch.randn(4, 6))
print(f"{total:.6f} {ITERS}")
