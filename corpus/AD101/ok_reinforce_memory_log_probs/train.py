# expect-before: runs
# REINFORCE: each step's log-probability is kept with its graph in an episode
# memory (its class in episode_memory.py), and the update backwards the
# return-weighted sum once per episode, then clears the memory. Keeping the
# graph is the point: the single backward trains the policy through every
# stored step. Nothing to report.
import os
import sys

import torch
from torch import nn
from torch.distributions import Categorical

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from episode_memory import EpisodeMemory  # noqa: E402

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
DIM, STEPS = 4, 6


class Reinforce:
    def __init__(self, policy):
        self.policy = policy
        self.memory = EpisodeMemory()
        self.opt = torch.optim.Adam(policy.parameters(), lr=0.01)

    def act(self, state, reward):
        dist = Categorical(logits=self.policy(state))
        action = dist.sample()
        log_prob = dist.log_prob(action)
        self.memory.push(log_prob, reward)
        return action.item()

    def update(self, gamma=0.99):
        log_probs, rewards = self.memory.take()
        running, returns = 0.0, []
        for r in reversed(rewards):
            running = r + gamma * running
            returns.insert(0, running)
        returns = torch.tensor(returns)
        loss = -(torch.stack(log_probs) * returns).sum()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.memory.clear()
        return loss.item()


agent = Reinforce(nn.Linear(DIM, 2))
for it in range(ITERS):
    for step in range(STEPS):
        agent.act(torch.randn(DIM), float(step % 3 == 0))
    print(f"{agent.update():.6f}")
