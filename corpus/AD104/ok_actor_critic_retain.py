# expect-before: runs
# Actor-critic on a shared trunk with two optimizers: the actor loss is
# backwarded first and the critic loss walks the same trunk graph afterwards,
# so the first backward must keep it.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

trunk = nn.Sequential(nn.Linear(4, 32), nn.ReLU())
actor = nn.Linear(32, 3)
critic = nn.Linear(32, 1)
actor_opt = torch.optim.Adam(list(trunk.parameters()) + list(actor.parameters()), lr=1e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)

for episode in range(ITERS):
    states = torch.randn(10, 4)
    h = trunk(states)
    dist = Categorical(logits=actor(h))
    actions = dist.sample()
    rewards = (actions == 1).float() + 0.1 * states[:, 0]
    values = critic(h).squeeze(1)
    advantage = rewards - values.detach()
    actor_loss = -(dist.log_prob(actions) * advantage).mean()
    critic_loss = F.mse_loss(values, rewards)
    actor_opt.zero_grad()
    critic_opt.zero_grad()
    actor_loss.backward(retain_graph=True)
    critic_loss.backward()
    actor_opt.step()
    critic_opt.step()
    print(f"{episode} actor {actor_loss.item():.6f} critic {critic_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in trunk.parameters()):.6f}")
