# expect-before: error Trying to backward through the graph a second time
# The REINFORCE agent of the PyTorch examples with one line lost: `select_action`
# (no backward of its own) appends each step's log-probability to a list on the
# module-level policy, and `finish_episode` never clears it. The second episode's
# loss sums the first episode's entries too, whose graph the first backward freed.
# Reported without a fix: detaching where they are stored would cut this
# episode's own loss (`del policy.saved_log_probs[:]` after the step was meant).
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
    return loss.item()


for episode in range(ITERS):
    for t in range(5):
        select_action(torch.randn(4))
        policy.rewards.append(1.0)
    print(f"episode {episode} loss {finish_episode():.6f}")
print(f"checksum {policy.fc.weight.sum().item():.6f}")
