# expect-before: runs
# A soft actor-critic agent whose base class (agent_base.py) builds every
# optimizer through `_get_optimizer(kind, model, lr)`, the class chosen at
# run time, and keeps one per critic in a list made by a comprehension. The
# policy is updated first: its loss, the minimum over the critics, is
# backwarded and stepped before the critics are stepped through the base's
# `_perform_update` in a list comprehension. Nothing is backwarded through
# weights a step changed.
import os

import torch
from torch import nn

from agent_base import BaseAgent

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, obs, act):
        return self.net(torch.cat([obs, act], -1))


class SACAgent(BaseAgent):
    def __init__(self):
        super().__init__("adam")
        self.policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
        self.critics = nn.ModuleList([Critic() for _ in range(2)])
        self.policy_opt = self._get_optimizer(self._optimizer, self.policy, 3e-4)
        self.critic_opts = [self._get_optimizer(self._optimizer, critic, 3e-4) for critic in self.critics]

    def _compute_policy_loss(self, obs, act):
        q_est = torch.min(*[critic(obs, act) for critic in self.critics])
        return -q_est.mean()

    def _compute_critic_losses(self, obs, act, q_target):
        return [0.5 * (critic(obs, act.detach()) - q_target).pow(2).mean() for critic in self.critics]

    def update(self, obs, act, reward):
        pi_act = self.policy(obs)
        policy_loss = self._compute_policy_loss(obs, pi_act)
        self._perform_update(policy_loss, self.policy_opt, self.policy)
        critic_losses = self._compute_critic_losses(obs, act, reward)
        [self._perform_update(critic_loss, critic_opt, critic)
         for critic_loss, critic_opt, critic in zip(critic_losses, self.critic_opts, self.critics)]
        return policy_loss.item(), [loss.item() for loss in critic_losses]


agent = SACAgent()
for it in range(ITERS):
    policy_loss, critic_losses = agent.update(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1))
    print(f"{it} {policy_loss:.6f} {critic_losses[0]:.6f} {critic_losses[1]:.6f}")
