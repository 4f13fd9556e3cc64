# expect-before: runs
# An actor-critic learner records the critic's value of each state into its
# rollout memory under torch.no_grad(), and the update fits the critic for
# several epochs against returns built from those values. The stored values
# carry no graph, so every epoch's backward walks only the fresh forward.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
DIM, STEPS = 6, 5


class Rollout:
    def __init__(self):
        self.states, self.values, self.rewards = [], [], []

    def store(self, state, value, reward):
        self.states.append(state)
        self.values.append(value)
        self.rewards.append(reward)

    def batch(self, gamma=0.9):
        running, returns = self.values[-1].squeeze(), []
        for r in reversed(self.rewards):
            running = r + gamma * running
            returns.insert(0, running)
        out = torch.stack(self.states), torch.stack(returns)
        self.states, self.values, self.rewards = [], [], []
        return out


class Learner:
    def __init__(self, critic):
        self.critic = critic
        self.rollout = Rollout()
        self.opt = torch.optim.SGD(critic.parameters(), lr=0.01)

    def observe(self, state, reward):
        with torch.no_grad():
            value = self.critic(state)
        self.rollout.store(state, value, reward)

    def learn(self, epochs):
        states, returns = self.rollout.batch()
        for _ in range(epochs):
            loss = (self.critic(states).squeeze(-1) - returns).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        return loss.item()


learner = Learner(nn.Linear(DIM, 1))
for it in range(ITERS):
    for step in range(STEPS):
        learner.observe(torch.randn(DIM), float(step % 2))
    print(f"{learner.learn(ITERS):.6f}")
