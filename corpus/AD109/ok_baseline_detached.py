# expect-before: runs
# REINFORCE with a learned baseline: the advantage uses `value.detach()`, but
# the value head still learns from its own loss, summed into the backward.
import os

import torch
from torch import nn, optim
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 3))
value_fn = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 1))
opt = optim.Adam([*policy.parameters(), *value_fn.parameters()], lr=1e-3)
for episode in range(ITERS):
    states = torch.randn(12, 4)
    dist = Categorical(logits=policy(states))
    actions = dist.sample()
    returns = (actions == 2).float() * 2.0 - 0.5
    value = value_fn(states).squeeze(1)
    advantage = returns - value.detach()
    policy_loss = -(dist.log_prob(actions) * advantage).mean()
    value_loss = (value - returns).pow(2).mean()
    opt.zero_grad()
    (policy_loss + value_loss).backward()
    opt.step()
    print(f"{episode} policy {policy_loss.item():.6f} value {value_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in policy.parameters()):.6f}")
