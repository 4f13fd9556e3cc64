# expect-before: runs
# A soft actor-critic agent steps the critic and the actor through a helper
# of its base class that takes the optimizer as an argument
# (`take_optimisation_step(optimizer, net, loss)`).
# The actor's loss is built after the critic's step, from the updated critic:
# nothing is stale.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class BaseAgent:
    def take_optimisation_step(self, optimizer, network, loss, clipping_norm=None):
        optimizer.zero_grad()
        loss.backward()
        if clipping_norm is not None:
            torch.nn.utils.clip_grad_norm_(network.parameters(), clipping_norm)
        optimizer.step()


class SAC(BaseAgent):
    def __init__(self, obs=4, act=2):
        self.actor = nn.Sequential(nn.Linear(obs, 16), nn.ReLU(), nn.Linear(16, act))
        self.critic = nn.Sequential(nn.Linear(obs + act, 16), nn.ReLU(), nn.Linear(16, 1))
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def learn(self, s, a, r):
        critic_loss = (self.critic(torch.cat([s, a], 1)) - r).pow(2).mean()
        self.take_optimisation_step(self.critic_optimizer, self.critic, critic_loss, 5.0)
        actor_loss = -self.critic(torch.cat([s, torch.tanh(self.actor(s))], 1)).mean()
        self.take_optimisation_step(self.actor_optimizer, self.actor, actor_loss, 5.0)
        return critic_loss.item(), actor_loss.item()


agent = SAC()
for it in range(ITERS):
    c, p = agent.learn(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1))
    print(f"{it} critic {c:.6f} actor {p:.6f}")
