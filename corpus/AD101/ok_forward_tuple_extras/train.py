# expect-before: runs
# A trainer keeps, across its steps, the extra results of the project's
# classifier: its forward (models.py) returns the logits together with the
# top-2 indices of `topk`, the batch size (`x.shape[0]`) and a list of
# floats (`.item()`). Only the logits carry the graph, and they are not
# kept; the other elements hold none: nothing to report (a `.detach()` on
# the int or the list would crash).
import os

import torch
import torch.nn.functional as F

from models import Classifier

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.net = Classifier()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.05)
        self.tops, self.seen, self.norms = [], 0, []

    def step(self, x, y):
        logits, top2, n, norms = self.net(x)
        loss = F.cross_entropy(logits, y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.tops.append(top2)
        self.seen += n
        self.norms.extend(norms)
        return loss.item()


torch.manual_seed(0)
trainer = Trainer()

if __name__ == "__main__":
    for i in range(ITERS):
        x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
        print(f"{i} loss {trainer.step(x, y):.6f} seen {trainer.seen}")
    hits = sum(int(t[:, 0].eq(0).sum()) for t in trainer.tops)
    print(f"hits {hits} norms {sum(trainer.norms):.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.net.parameters()):.6f}")
