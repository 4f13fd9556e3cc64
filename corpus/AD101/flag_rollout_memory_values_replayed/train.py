# expect-before: error Trying to backward through the graph a second time
# An actor-critic learner keeps a rollout memory (its class in memory.py). Each
# environment step records the critic's value of the state, computed with
# gradients on, into the memory; the update draws the rollout once and fits the
# critic for several epochs against returns built from those stored values. The
# second epoch's backward walks the stored values' graph, freed by the first.
# A cut would change what a retained backward sends through the stored values,
# so the finding comes with no fix.
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memory import RolloutMemory  # noqa: E402

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
DIM, STEPS = 6, 5


class Learner:
    def __init__(self, critic, memory):
        self.critic = critic
        self.memory = memory
        self.opt = torch.optim.SGD(critic.parameters(), lr=0.01)

    def observe(self, state, reward):
        value = self.critic(state)
        self.memory.add(state, reward, value)

    def learn(self, epochs):
        self.memory.finish()
        states, old_values, returns = self.memory.draw()
        for _ in range(epochs):
            pred = self.critic(states).squeeze(-1)
            loss = (pred - returns).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        return loss.item()


learner = Learner(nn.Linear(DIM, 1), RolloutMemory(STEPS, DIM))
for it in range(ITERS):
    for step in range(STEPS):
        learner.observe(torch.randn(DIM), float(step % 2))
    print(f"{learner.learn(3):.6f}")
