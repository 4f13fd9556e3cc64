# expect-before: runs
# autodetach-test: unsafe
# A few-shot trainer keeps per-epoch Averagers from the project's utils.py.
# The classification loss is one term of the backwarded total and is handed
# to `tl2.add(loss)` as a tensor: `Averager.add` folds it into `self.v` as a
# running mean, `(v * n + x) / (n + 1)`, so `v` chains every batch's graph of
# the epoch. What the averager keeps is inferred from its code in another
# file: the fix is offered as unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from utils import Averager

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ProtoNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)
        self.reg = nn.Linear(16, 3)

    def forward(self, x):
        h = self.encoder(x)
        return self.head(h), self.reg(h)


class FSLTrainer:
    def __init__(self, model, batches):
        self.model = model
        self.para_model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        self.batches = batches

    def train(self, epochs):
        self.model.train()
        for epoch in range(1, epochs + 1):
            tl1 = Averager()
            tl2 = Averager()
            for data, label in self.batches:
                logits, reg_logits = self.para_model(data)
                loss = F.cross_entropy(logits, label)
                total_loss = loss + 0.1 * F.cross_entropy(reg_logits, label)
                tl2.add(loss.detach())
                tl1.add(total_loss.item())

                self.optimizer.zero_grad()
                total_loss.backward()
                self.optimizer.step()
            print(f"epoch {epoch} loss {tl1.item():.6f} ce {float(tl2.item()):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    batches = [(torch.randn(9, 6), torch.arange(9) % 3) for _ in range(ITERS)]
    model = ProtoNet()
    FSLTrainer(model, batches).train(2)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
