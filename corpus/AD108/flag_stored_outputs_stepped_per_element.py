# expect-before: error modified by an inplace operation
# A trainer computes an embedding network's output for every batch in a
# first loop and keeps it in a list of candidates; a second loop walks the
# candidates by index, backwards a loss through each stored output and steps
# the optimizer that owns the embedding network. Each pass reads its own
# element, so no graph is walked twice, but from the second candidate on the
# stored output was computed with weights an earlier pass's step changed in
# place. Reported without a fix: compute the output inside the second loop,
# or step once after it.
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
            z = self.embed(x)
            candidates.append((z, y))
        n = len(candidates)
        for i in range(n):
            z, y = candidates[i]
            self.optimizer.zero_grad()
            loss = F.mse_loss(self.head(z), y)
            loss.backward()
            self.optimizer.step()
            print(f"{i} loss {loss.item():.6f}")


trainer = Trainer()
trainer.train([(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(ITERS)])
print(f"checksum {sum(p.sum().item() for p in trainer.embed.parameters()):.6f}")
