# expect-before: grows
# A metrics tensor made once per epoch is filled batch by batch through a
# helper: the predicted probability and its confidence go into two rows of
# it. Each in-place write hangs the tensor from that batch's graph, so both
# rows keep every batch's forward alive; detaching only the last write would
# leave the first one growing.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
PRED, CONF, LABEL = 0, 1, 2
BATCH = 16


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def batch_loss(self, i, x, y, metrics):
        logits = self.model(x)
        prob = torch.softmax(logits, dim=1)
        loss = F.cross_entropy(logits, y)
        start, end = i * BATCH, (i + 1) * BATCH
        metrics[LABEL, start:end] = y.float()
        metrics[PRED, start:end] = prob[:, 1]
        metrics[CONF, start:end] = prob.max(dim=1)[0]
        return loss

    def epoch(self, batches):
        metrics = torch.zeros(3, len(batches) * BATCH)
        for i, (x, y) in enumerate(batches):
            loss = self.batch_loss(i, x, y, metrics)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        return metrics


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    batches = [(torch.randn(BATCH, 8), torch.randint(0, 2, (BATCH,))) for _ in range(ITERS)]
    metrics = trainer.epoch(batches)
    print(f"mean prob {metrics[PRED].mean().item():.6f} conf {metrics[CONF].mean().item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
