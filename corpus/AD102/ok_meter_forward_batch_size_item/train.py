# expect-before: runs
# The same continual learner and AverageMeter as meter_forward_batch_size,
# but the loss is handed to the meter as `loss.item()`, as the project's other
# agents do: the meter sums Python floats and keeps no graph.
import os

import torch
import torch.nn as nn

from meters import AverageMeter

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ContinualLearner:
    def __init__(self, model, opt, epochs):
        self.model = model
        self.opt = opt
        self.epoch = epochs

    def criterion(self, logits, labels):
        return nn.functional.cross_entropy(logits, labels)


class ExperienceReplay(ContinualLearner):
    def train_learner(self, batches):
        self.model = self.model.train()
        losses_batch = AverageMeter()
        acc_batch = AverageMeter()
        for ep in range(self.epoch):
            for i, (batch_x, batch_y) in enumerate(batches):
                logits = self.model.forward(batch_x)
                loss = self.criterion(logits, batch_y)
                _, pred_label = torch.max(logits, 1)
                correct_cnt = (pred_label == batch_y).sum().item() / batch_y.size(0)
                acc_batch.update(correct_cnt, batch_y.size(0))
                losses_batch.update(loss.item(), batch_y.size(0))
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            print(f"epoch {ep} loss {losses_batch.avg():.6f} acc {acc_batch.avg():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    batches = [(torch.randn(9, 6), torch.arange(9) % 3) for _ in range(ITERS)]
    ExperienceReplay(net, torch.optim.SGD(net.parameters(), lr=0.05), 2).train_learner(batches)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
