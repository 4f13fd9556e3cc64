# expect-before: error Trying to backward through the graph a second time
# A policy-gradient learner: `Learner.observe` (no backward of its own)
# appends each step's log-probability to `self.log_probs`; `update` backwards
# their sum but never empties the list. Another class of the file, the
# `Recorder` that logs episodes, has its own `log_probs` list and resets it
# in `new_episode`: that reset empties the recorder's list, not the
# learner's, so the second update still reads the first episode's entries,
# whose graph the first backward freed. Reported without a fix: detaching
# where they are stored would cut this episode's own loss.
import os

import torch
import torch.nn as nn
from torch.distributions import Normal

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Recorder:
    def __init__(self):
        self.log_probs = []
        self.returns = []

    def new_episode(self):
        self.log_probs = []
        self.returns = [0.0]

    def note(self, value):
        self.log_probs.append(float(value))


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


learner, recorder = Learner(), Recorder()
for episode in range(ITERS):
    recorder.new_episode()
    for t in range(3):
        a = learner.observe(torch.randn(3))
        recorder.note(a.sum().item())
    print(f"episode {episode} loss {learner.update(1.0):.6f}")
print(f"checksum {learner.mu.weight.sum().item():.6f}")
