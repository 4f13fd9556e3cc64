# expect-before: error modified by an inplace operation
# A DDPG agent reaches its networks through small helper methods that call
# `self.critic.forward(s, a)` and `self.actor.forward(s)` (not `self.critic(...)`).
# The actor's loss is built from the critic before the critic's optimizer
# steps, then backwarded after it: its graph saved critic weights the step
# changed in place. Reported without a fix (recompute the actor loss after
# the critic's step).
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, s, a):
        return self.net(torch.cat([s, a], 1))


class Agent:
    def __init__(self):
        self.actor = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
        self.critic = Critic()
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def _act(self, s):
        out = self.actor.forward(s)
        return out

    def _q(self, s, a):
        q = self.critic.forward(s, a)
        return q

    def learn(self, s, a, target):
        critic_loss = F.mse_loss(self._q(s, a), target)
        actor_loss = -self._q(s, self._act(s)).mean()
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()
        return critic_loss.item(), actor_loss.item()


agent = Agent()
for it in range(ITERS):
    c, p = agent.learn(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1))
    print(it, f"{c:.6f} {p:.6f}")
