# expect-before: runs
# The same agent, critics stepped through a helper in a loop over
# zip(losses, optimizers, critics), but the policy loss is built after the
# critic steps: its graph saw the new weights.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Agent:
    def _get_optimizer(self, model, lr):
        return torch.optim.Adam(model.parameters(), lr=lr)

    def _perform_update(self, loss, opt, network):
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(network.parameters(), 5.0)
        opt.step()


class SACAgent(Agent):
    def __init__(self):
        self.policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
        self.critics = nn.ModuleList(
            [nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1)) for _ in range(2)])
        self.critic_opts = [torch.optim.Adam(critic.parameters(), lr=1e-3) for critic in self.critics]
        self.policy_opt = self._get_optimizer(self.policy, 1e-3)

    def _compute_policy_loss(self, obs):
        act = self.policy(obs)
        q = torch.min(*[critic(torch.cat([obs, act], 1)) for critic in self.critics])
        return -q.mean()

    def _compute_critic_loss(self, obs, act, target):
        qs = [critic(torch.cat([obs, act], 1)) for critic in self.critics]
        return [(q - target).pow(2).mean() for q in qs]

    def update(self, obs, act, target):
        critic_losses = self._compute_critic_loss(obs, act, target)
        for loss, c_opt, critic in zip(critic_losses, self.critic_opts, self.critics):
            self._perform_update(loss, c_opt, critic)
        policy_loss = self._compute_policy_loss(obs)
        self._perform_update(policy_loss, self.policy_opt, self.policy)
        return policy_loss.item()


agent = SACAgent()
for it in range(ITERS):
    print(it, agent.update(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1)))
