# expect-before: runs
# A trainer keeps the step's loss on `self.batch_loss` in its batch step and
# logs it in another method, `end_of_batch_log`, which appends it to the
# epoch's statistics. The loss was backwarded, so its saved tensors are
# freed, but the list keeps every batch's loss with its graph nodes until the
# next epoch makes the list again.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self, model, optimizer, batches):
        self.model = model
        self.optimizer = optimizer
        self.batches = batches
        self.statistics = {"loss": []}

    def batch_step(self, x, y):
        out = self.model(x)
        loss = nn.functional.mse_loss(out, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.batch_loss = loss
        self.end_of_batch_log()

    def end_of_batch_log(self):
        self.statistics["loss"] += [self.batch_loss.detach()]

    def epoch_step(self, epoch):
        self.statistics = {"loss": []}
        for x, y in self.batches:
            self.batch_step(x, y)
        mean = sum(v.item() for v in self.statistics["loss"]) / len(self.batches)
        print(f"epoch {epoch} loss {mean:.6f}")


model = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.05),
                  [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(ITERS)])
for epoch in range(2):
    trainer.epoch_step(epoch)

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
