# expect-before: runs
# A trainer's `_step` backwards its loss, steps, and returns `loss.item()`;
# `step` sums those numbers: nothing with a graph is summed or kept.
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
        return loss.item()

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
print("losses", " ".join(f"{v:.6f}" for v in log))
print(f"checksum {sum(p.sum().item() for p in trainer.critic.parameters()):.6f}")
