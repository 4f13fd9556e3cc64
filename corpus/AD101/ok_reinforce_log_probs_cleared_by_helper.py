# expect-before: runs
# The REINFORCE agent of the PyTorch examples as written: `select_action` appends
# each step's log-probability to a list on the module-level policy and
# `finish_episode` empties it after the step, so every episode's loss reads only
# its own graph. No finding.
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


def select_action(state):
    m = Categorical(policy(state))
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    returns, ret = [], 0.0
    for r in policy.rewards[::-1]:
        ret = r + 0.99 * ret
        returns.insert(0, ret)
    returns = torch.tensor(returns)
    loss = []
    for log_prob, ret in zip(policy.saved_log_probs, returns):
        loss.append(-log_prob * ret)
    optimizer.zero_grad()
    loss = torch.stack(loss).sum()
    loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return loss.item()


for episode in range(ITERS):
    for t in range(5):
        select_action(torch.randn(4))
        policy.rewards.append(1.0)
    print(f"episode {episode} loss {finish_episode():.6f}")
print(f"checksum {policy.fc.weight.sum().item():.6f}")
