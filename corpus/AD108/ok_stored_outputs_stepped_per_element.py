# expect-before: runs
# The shape of flag_stored_outputs_stepped_per_element, written correctly:
# the first loop keeps only the inputs, and the second loop runs the
# embedding network on each candidate after the previous pass's step.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self):
        self.embed = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 4))
        self.head = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(list(self.embed.parameters()) + list(self.head.parameters()), lr=0.05)

    def train(self, batches):
        candidates = []
        for x, y in batches:
            candidates.append((x, y))
        n = len(candidates)
        for i in range(n):
            x, y = candidates[i]
            self.optimizer.zero_grad()
            loss = F.mse_loss(self.head(self.embed(x)), y)
            loss.backward()
            self.optimizer.step()
            print(f"{i} loss {loss.item():.6f}")


trainer = Trainer()
trainer.train([(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(ITERS)])
print(f"checksum {sum(p.sum().item() for p in trainer.embed.parameters()):.6f}")
