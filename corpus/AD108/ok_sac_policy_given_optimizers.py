# expect-before: runs
# A soft actor-critic policy receives its networks and their optimizers in
# __init__ (`self.critic1_optim` beside `self.critic1`, paired by name). The
# critics are trained first, then the actor's Q values are computed again
# through the stepped critics: no backward walks weights saved before a step.
# The critics' losses go through the policy's own forward (`self(obs)`), which
# runs only the actor, not yet stepped.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class SACPolicy(nn.Module):
    def __init__(self, actor, actor_optim, critic1, critic1_optim, critic2, critic2_optim):
        super().__init__()
        self.actor, self.actor_optim = actor, actor_optim
        self.critic1, self.critic1_optim = critic1, critic1_optim
        self.critic2, self.critic2_optim = critic2, critic2_optim

    def forward(self, obs):
        return torch.tanh(self.actor(obs))

    def learn(self, obs, act, target_q):
        a = self(obs)
        both = torch.cat([torch.cat([obs, obs]), torch.cat([act, a])], 1)
        q1, _ = self.critic1(both).split(obs.size(0))
        q2, _ = self.critic2(both).split(obs.size(0))
        critic1_loss = F.mse_loss(q1, target_q)
        self.critic1_optim.zero_grad()
        critic1_loss.backward(retain_graph=True)
        self.critic1_optim.step()
        critic2_loss = F.mse_loss(q2, target_q)
        self.critic2_optim.zero_grad()
        critic2_loss.backward()
        self.critic2_optim.step()
        a = self(obs)
        actor_loss = -torch.min(self.critic1(torch.cat([obs, a], 1)), self.critic2(torch.cat([obs, a], 1))).mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.actor_optim.step()
        return actor_loss.item(), critic1_loss.item()


def mlp(n_in, n_out):
    return nn.Sequential(nn.Linear(n_in, 16), nn.ReLU(), nn.Linear(16, n_out))


actor, critic1, critic2 = mlp(4, 2), mlp(6, 1), mlp(6, 1)
policy = SACPolicy(actor, torch.optim.Adam(actor.parameters(), lr=1e-3),
                   critic1, torch.optim.Adam(critic1.parameters(), lr=1e-3),
                   critic2, torch.optim.Adam(critic2.parameters(), lr=1e-3))
for i in range(ITERS):
    obs, act, target_q = torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1)
    actor_loss, critic_loss = policy.learn(obs, act, target_q)
    print(f"{i} actor {actor_loss:.6f} critic {critic_loss:.6f}")
print(f"checksum {sum(p.sum().item() for p in policy.parameters()):.6f}")
