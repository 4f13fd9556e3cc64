# expect-before: runs
# A recurrent policy keeps its GRU state on itself and acts with gradients on,
# step after step, without a backward in the acting loop: correct here, since
# the log-probabilities of the actions are kept and the episode's loss is
# backwarded through the whole chain once the episode ends (backpropagation
# through the episode), and the state is reset before the next one.
import os

import torch
import torch.nn as nn
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class RecurrentPolicy(nn.Module):
    def __init__(self, obs_dim=4, hidden=8, n_actions=2):
        super().__init__()
        self.hidden = hidden
        self.cell = nn.GRUCell(obs_dim, hidden)
        self.logits = nn.Linear(hidden, n_actions)
        self.reset()

    def reset(self):
        self.h = torch.zeros(1, self.hidden)

    def forward(self, obs):
        self.h = self.cell(obs, self.h)
        return self.logits(self.h)


class Agent:
    def __init__(self):
        self.policy = RecurrentPolicy()
        self.opt = torch.optim.Adam(self.policy.parameters(), lr=1e-2)
        self.log_probs = []

    def act(self, obs):
        logits = self.policy(obs.view(1, -1))
        dist = Categorical(logits=logits)
        action = dist.sample()
        self.log_probs.append(dist.log_prob(action))
        return action.item()

    def finish_episode(self, rewards):
        returns = torch.tensor(rewards).flip(0).cumsum(0).flip(0)
        loss = -(torch.cat(self.log_probs) * returns).sum()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.log_probs = []
        return loss.item()


agent = Agent()
for episode in range(ITERS):
    agent.policy.reset()
    rewards = []
    obs = torch.randn(4)
    for t in range(6):
        action = agent.act(obs)
        rewards.append(1.0 if action == 0 else 0.0)
        obs = torch.randn(4)
    print(f"{episode} loss {agent.finish_episode(rewards):.6f}")
