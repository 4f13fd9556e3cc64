# expect-before: runs
# The multi-agent update written correctly: each agent rebuilds the joint
# actions inside the loop, after the previous agent's step, so no backward
# walks a graph saved before a step.
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
    for idx, agent in enumerate(agents):
        actions = []
        for j, other in enumerate(agents):
            act = other.actor(states[j])
            actions.append(act if j == idx else act.detach())
        joint = torch.cat(actions, dim=1)
        actor_loss = -agent.critic(torch.cat([states[idx], joint], dim=1)).mean()
        agent.actor_opt.zero_grad()
        actor_loss.backward()
        agent.actor_opt.step()
        print(f"agent {idx} actor loss {actor_loss.item():.6f}")


torch.manual_seed(0)
agents = [Agent() for _ in range(N_AGENTS)]
for it in range(ITERS):
    learn(agents, [torch.randn(8, 4) for _ in range(N_AGENTS)])
print(f"checksum {sum(p.sum().item() for a in agents for p in a.actor.parameters()):.6f}")
