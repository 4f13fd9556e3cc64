# expect-before: runs
# A trainer's `_step` backwards its loss, steps, and returns the loss tensor;
# `step` sums what several such steps return, so the running sum keeps every
# step's graph nodes until the caller drops it (here, kept in a log list).
# The callee's local is also called `loss`: the sum is still the caller's own.
# `.detach()` is safe: each summed graph was freed by its backward, so nothing
# could backward the sum.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class CriticTrainer:
    def __init__(self, critic, lr, train_num=3):
        self.critic = critic
        self.train_num = train_num
        self.optimizer = torch.optim.SGD(critic.parameters(), lr=lr)

    def _step(self, batch):
        loss = self.critic(batch).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss

    def step(self, batch):
        loss = 0
        for _ in range(self.train_num):
            loss += self._step(batch)
        loss /= self.train_num
        return loss


trainer = CriticTrainer(nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 1)), lr=0.05)
log = []
for it in range(ITERS):
    log.append(trainer.step(torch.randn(16, 5)))
print("losses", " ".join(f"{v.item():.6f}" for v in log))
print(f"checksum {sum(p.sum().item() for p in trainer.critic.parameters()):.6f}")
