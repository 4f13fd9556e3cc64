# expect-before: runs
# A policy whose forward returns a torch.distributions object, its actions drawn with
# `.rsample()` (reparameterised): they carry the graph, and the distance kept over
# all episodes holds every episode's graph alive. Detach it where it is summed.
import os

import torch
import torch.nn as nn
from torch.distributions import Normal

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GaussianPolicy(nn.Module):
    def __init__(self, n_state, n_action):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_state, 16), nn.Tanh(), nn.Linear(16, n_action))
        self.log_std = nn.Parameter(torch.full((n_action,), -0.5))

    def forward(self, state):
        mu = torch.tanh(self.body(state))
        dist = Normal(mu, self.log_std.exp().expand_as(mu))
        return dist


class PointMass:
    """A plain simulator, no parameters."""

    def step(self, state, action):
        pos = state[:, :2] + 0.1 * action
        return torch.cat([pos, state[:, 2:] + 1.0], dim=1)


torch.manual_seed(0)
policy = GaussianPolicy(3, 2)
optimizer = torch.optim.SGD(policy.parameters(), lr=0.05)
sim = PointMass()
distance = 0.0
for episode in range(ITERS):
    state = torch.zeros(4, 3)
    states, actions, rewards = [], [], []
    for t in range(6):
        dist = policy(state)
        action = dist.rsample()
        states.append(state)
        actions.append(action)
        state = sim.step(state, action)
        rewards.append(state[:, 0])
    distance = (distance + state[:, 0].sum()).detach()
    returns = torch.stack(rewards).flip(0).cumsum(0).flip(0).reshape(-1)
    log_probs = policy(torch.cat(states)).log_prob(torch.cat(actions)).sum(-1)
    loss = -(log_probs * (returns - returns.mean())).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"{episode} {loss.item():.6f} {float(distance):.6f}")
print(f"checksum {sum(p.sum().item() for p in policy.parameters()):.6f}")
