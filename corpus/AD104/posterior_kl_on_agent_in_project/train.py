# expect-before: runs
# A meta-RL learner (PEARL-like) whose agent, a class of agent.py handed to the
# trainer, keeps the task posterior it infers on itself. The critic runs on the task
# code detached (the encoder learns from the KL term only), so the critic's backward
# walks none of the encoder's graph: the KL backward's retain keeps it for nothing.
import os

import torch
import torch.nn as nn

from agent import ContextAgent

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Learner:
    def __init__(self, agent, obs_dim=3, latent=2, kl_weight=0.1):
        self.agent = agent
        self.critic = nn.Sequential(nn.Linear(obs_dim + latent, 16), nn.ReLU(), nn.Linear(16, 1))
        self.kl_weight = kl_weight
        self.context_optimizer = torch.optim.Adam(self.agent.parameters(), lr=1e-2)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=1e-2)

    def take_step(self, obs, context, returns):
        task_z = self.agent(obs, context)
        value = self.critic(torch.cat([obs, task_z.detach()], dim=1))
        self.context_optimizer.zero_grad()
        kl_div = self.agent.kl_divergence()
        kl_loss = self.kl_weight * kl_div
        kl_loss.backward(retain_graph=True)
        self.critic_optimizer.zero_grad()
        critic_loss = (value.squeeze(1) - returns).pow(2).mean()
        critic_loss.backward()
        self.critic_optimizer.step()
        self.context_optimizer.step()
        return kl_loss.item() + critic_loss.item()


learner = Learner(ContextAgent())
total = 0.0
for step in range(ITERS):
    total += learner.take_step(torch.randn(8, 3), torch.randn(6, 5), torch.randn(8))
print(f"loss {total / ITERS:.6f}")
print(f"checksum {sum(p.sum().item() for p in learner.agent.parameters()):.6f}")
