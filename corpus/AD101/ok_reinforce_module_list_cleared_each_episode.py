# expect-before: runs
# A module-level list that a helper fills each step and the episode loop
# empties before each episode (`saved.clear()`): the helpers hold no backward of
# their own, and every episode's loss reads only its own entries. No finding.
import os

import torch
import torch.nn as nn
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=-1)


policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
saved = []


def select_action(state):
    m = Categorical(policy(state))
    action = m.sample()
    saved.append(m.log_prob(action))
    return action.item()


def finish_episode():
    returns, ret = [], 0.0
    for r in policy.rewards[::-1]:
        ret = r + 0.99 * ret
        returns.insert(0, ret)
    returns = torch.tensor(returns)
    loss = []
    for log_prob, ret in zip(saved, returns):
        loss.append(-log_prob * ret)
    optimizer.zero_grad()
    loss = torch.stack(loss).sum()
    loss.backward()
    optimizer.step()
    del policy.rewards[:]
    return loss.item()


for episode in range(ITERS):
    saved.clear()
    for t in range(5):
        select_action(torch.randn(4))
        policy.rewards.append(1.0)
    print(f"episode {episode} loss {finish_episode():.6f}")
print(f"checksum {policy.fc.weight.sum().item():.6f}")
