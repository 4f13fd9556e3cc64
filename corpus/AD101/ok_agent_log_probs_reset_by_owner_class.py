# expect-before: runs
# A policy-gradient learner whose `observe` appends each step's
# log-probability to `self.log_probs`; the `Trainer` that owns it
# (`self.learner = Learner()`) empties that list after each update through
# `self.learner.log_probs.clear()` in `end_episode`. Each update reads only
# its own episode: nothing is kept across episodes, so nothing is reported.
import os

import torch
import torch.nn as nn
from torch.distributions import Normal

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Learner:
    def __init__(self):
        self.mu = nn.Linear(3, 1)
        self.opt = torch.optim.SGD(self.mu.parameters(), lr=1e-2)
        self.log_probs = []

    def observe(self, obs):
        dist = Normal(self.mu(obs), 1.0)
        action = dist.sample()
        self.log_probs.append(dist.log_prob(action).sum())
        return action

    def update(self, ret):
        loss = -ret * torch.stack(self.log_probs).sum()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


class Trainer:
    def __init__(self):
        self.learner = Learner()

    def end_episode(self):
        self.learner.log_probs.clear()

    def run(self, episodes):
        for episode in range(episodes):
            for t in range(3):
                self.learner.observe(torch.randn(3))
            print(f"episode {episode} loss {self.learner.update(1.0):.6f}")
            self.end_episode()


trainer = Trainer()
trainer.run(ITERS)
print(f"checksum {trainer.learner.mu.weight.sum().item():.6f}")
