# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A trainer keeps a queue of past embeddings and a flag on itself; its loss module (losses.py)
# refills the queue from this batch's embedding, with its graph, and returns it beside the loss
# with the flag it was handed. The next batch's loss reads the queue and walks into the freed graph.
# Only the queue holds a graph: the flag is the trainer's own `True`, handed back as it came.
# Detaching the queue where it is stored is what the run needs; the fix is unsafe because the
# queue's graph is inferred from reading losses.py.
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
        loss, queue, use_queue = self.criterion(output=output, embedding=embedding,
                                                prototypes=self.prototypes.weight,
                                                queue=self.queue, use_queue=self.use_the_queue)
        self.queue = queue
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
