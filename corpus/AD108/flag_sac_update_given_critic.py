# expect-before: error modified by an inplace operation
# Soft actor-critic update in a function handed its networks and their
# optimizers, which the caller keeps in a dict: `critic_optimiser` is paired
# with `critic` by name (the clip of `critic.parameters()` says `critic` is a
# module). The policy loss reads the critic's values of the new actions,
# computed before the critic's step; the step changes the critic weights
# that forward saved, and the policy's backward runs back through them. Not
# fixed: the policy loss must be built after the critic's step (or the
# policy updated first).
import os

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import clip_grad_norm_

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 4))

    def forward(self, states):
        mean, log_std = self.net(states).chunk(2, dim=1)
        return torch.distributions.Normal(mean, log_std.clamp(-5, 2).exp())


class TwinCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.q1 = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
        self.q2 = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, states, actions):
        both = torch.cat([states, actions], dim=1)
        return self.q1(both), self.q2(both)


def sac_update(actor, critic, batch, actor_optimiser, critic_optimiser, alpha=0.1, max_grad_norm=1.0):
    states, actions, targets = batch
    policies = actor(states)
    new_actions = policies.rsample()
    log_probs = policies.log_prob(new_actions).sum(dim=1, keepdim=True)
    new_values = torch.min(*critic(states, new_actions))
    policy_loss = (alpha * log_probs - new_values).mean()
    values_1, values_2 = critic(states, actions)
    value_loss = F.mse_loss(values_1, targets) + F.mse_loss(values_2, targets)
    critic_optimiser.zero_grad()
    value_loss.backward()
    clip_grad_norm_(critic.parameters(), max_grad_norm)
    critic_optimiser.step()
    actor_optimiser.zero_grad()
    policy_loss.backward()
    clip_grad_norm_(actor.parameters(), max_grad_norm)
    actor_optimiser.step()
    return policy_loss.item(), value_loss.item()


pi, q_net = Actor(), TwinCritic()
opts = {name: torch.optim.Adam(net.parameters(), lr=1e-3) for name, net in (("pi", pi), ("q", q_net))}
for i in range(ITERS):
    batch = torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1)
    policy_loss, value_loss = sac_update(pi, q_net, batch, opts["pi"], opts["q"])
    print(f"{i} policy {policy_loss:.6f} value {value_loss:.6f}")
print(f"checksum {sum(p.sum().item() for p in pi.parameters()):.6f}")
