# expect-before: runs
# A rollout that trains a critic at every step (its own optimizer) and returns
# the actor's losses with their graphs: the caller backwards their sum to
# train the actor. The step in the loop updates the critic only, never a
# module the kept losses went through, so the caller may well backward them
# (it does): nothing to report, and a `.detach()` would stop the actor's
# training.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def rollout(actor, critic, critic_opt, steps):
    actor_losses = []
    for t in range(steps):
        x = torch.randn(8, 4)
        action = actor(x)
        value = critic(torch.cat([x, action.detach()], 1))
        critic_loss = (value - 1.0).pow(2).mean()
        critic_opt.zero_grad()
        critic_loss.backward()
        critic_opt.step()
        actor_losses.append(action.pow(2).mean())
    return actor_losses


actor = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
critic = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
actor_opt = torch.optim.SGD(actor.parameters(), lr=0.05)
critic_opt = torch.optim.SGD(critic.parameters(), lr=0.05)
for update in range(ITERS):
    losses = rollout(actor, critic, critic_opt, 3)
    actor_opt.zero_grad()
    torch.stack(losses).sum().backward()
    actor_opt.step()
    print(f"update {update} actor {sum(float(v) for v in losses):.6f}")
print(f"checksum {sum(p.sum().item() for p in actor.parameters()):.6f} updates {ITERS}")
