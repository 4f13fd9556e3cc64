# expect-before: error modified by an inplace operation
# A multi-agent actor-critic update: the joint actions of all actors are
# computed once before the per-agent loop, and each agent's actor steps
# inside it, so the second agent's backward walks the first actor's graph
# after that actor's weights changed.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
N_AGENTS = 2


class Agent:
    def __init__(self):
        self.actor = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
        self.critic = nn.Sequential(nn.Linear(4 + 2 * N_AGENTS, 16), nn.ReLU(), nn.Linear(16, 1))
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-3)


def learn(agents, states):
    actions = []
    for idx, agent in enumerate(agents):
        act = agent.actor(states[idx])
        actions.append(act)
    joint = torch.cat(actions, dim=1)
    for idx, agent in enumerate(agents):
        actor_loss = -agent.critic(torch.cat([states[idx], joint], dim=1)).mean()
        agent.actor_opt.zero_grad()
        actor_loss.backward(retain_graph=True)
        agent.actor_opt.step()
        print(f"agent {idx} actor loss {actor_loss.item():.6f}")


torch.manual_seed(0)
agents = [Agent() for _ in range(N_AGENTS)]
for it in range(ITERS):
    learn(agents, [torch.randn(8, 4) for _ in range(N_AGENTS)])
print(f"checksum {sum(p.sum().item() for a in agents for p in a.actor.parameters()):.6f}")
