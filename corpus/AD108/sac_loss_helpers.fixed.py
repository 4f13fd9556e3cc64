# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# A soft actor-critic agent computes its losses in helper methods
# (`critic_loss`, `actor_loss`) that run the object's networks, builds both
# first, then steps the critics: the actor's backward walks the critics'
# weights the step changed. The fix builds the actor loss after that step.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class SAC:
    def __init__(self, obs=4, act=2):
        self.actor = nn.Sequential(nn.Linear(obs, 16), nn.ReLU(), nn.Linear(16, act))
        self.q1 = nn.Sequential(nn.Linear(obs + act, 16), nn.ReLU(), nn.Linear(16, 1))
        self.q2 = nn.Sequential(nn.Linear(obs + act, 16), nn.ReLU(), nn.Linear(16, 1))
        self.pi_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.q_opt = torch.optim.Adam(list(self.q1.parameters()) + list(self.q2.parameters()), lr=1e-3)

    def critic_loss(self, s, a, r):
        sa = torch.cat([s, a], 1)
        return (self.q1(sa) - r).pow(2).mean() + (self.q2(sa) - r).pow(2).mean()

    def actor_loss(self, s):
        sa_new = torch.cat([s, torch.tanh(self.actor(s))], 1)
        return -torch.min(self.q1(sa_new), self.q2(sa_new)).mean()

    def update(self, s, a, r):
        q_loss = self.critic_loss(s, a, r)
        self.q_opt.zero_grad()
        q_loss.backward()
        self.q_opt.step()
        self.pi_opt.zero_grad()
        policy_loss = self.actor_loss(s)
        policy_loss.backward()
        self.pi_opt.step()
        return q_loss.item(), policy_loss.item()


agent = SAC()
for it in range(ITERS):
    q, p = agent.update(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1))
    print(f"{it} critic {q:.6f} actor {p:.6f}")

print(f"checksum {sum(p.sum().item() for p in agent.actor.parameters()):.6f}")
