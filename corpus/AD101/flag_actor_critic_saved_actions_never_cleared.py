# expect-before: error Trying to backward through the graph a second time
# The actor-critic of the PyTorch examples with `del model.saved_actions[:]`
# lost: `select_action` (no backward of its own) appends a namedtuple of each
# step's log-probability and value, and the next episode's loss reads the first
# episode's pairs too, whose graph the first backward freed. The namedtuple
# holds the graph of what it is given. Reported without a fix: detaching where
# they are stored would cut this episode's own loss.
import os
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
SavedAction = namedtuple("SavedAction", ["log_prob", "value"])


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(4, 32)
        self.action_head = nn.Linear(32, 2)
        self.value_head = nn.Linear(32, 1)
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.trunk(x))
        return F.softmax(self.action_head(x), dim=-1), self.value_head(x)


model = ActorCritic()
optimizer = optim.Adam(model.parameters(), lr=3e-2)


def select_action(state):
    probs, value = model(state)
    m = Categorical(probs)
    action = m.sample()
    model.saved_actions.append(SavedAction(m.log_prob(action), value))
    return action.item()


def finish_episode(gamma=0.99):
    R = 0.0
    returns = []
    for r in model.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    policy_losses = []
    value_losses = []
    for (log_prob, value), R in zip(model.saved_actions, returns):
        advantage = R - value.item()
        policy_losses.append(-log_prob * advantage)
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
    optimizer.zero_grad()
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del model.rewards[:]
    return loss.item()


torch.manual_seed(0)
for episode in range(ITERS):
    state = torch.randn(4)
    for t in range(5):
        action = select_action(state)
        state = 0.9 * state + 0.1 * torch.randn(4)
        model.rewards.append(1.0 if action == 1 else 0.0)
    print(f"{episode} loss {finish_episode():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
