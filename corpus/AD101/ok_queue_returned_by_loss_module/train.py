# expect-before: runs
# A self-supervised trainer (a module itself, as a Lightning one is) keeps a queue of past embeddings and a flag on itself; its
# loss module (losses.py) fills the queue under no_grad and returns it with the flag
# beside the loss. Neither holds a graph, so storing them keeps no iteration alive.
import os

import torch
import torch.nn as nn

from losses import QueueLoss

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(6, 4)
        self.prototypes = nn.Linear(4, 3, bias=False)
        self.criterion = QueueLoss(temperature=0.1)
        self.optimizer = torch.optim.SGD(list(self.encoder.parameters()) + list(self.prototypes.parameters()),
                                         lr=0.1)
        self.queue = torch.zeros(8, 4)
        self.use_the_queue = False

    def step(self, x):
        embedding = self.encoder(x)
        output = self.prototypes(embedding)
        loss, queue, use_queue = self.criterion(output=output, embedding=embedding.detach(),
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
