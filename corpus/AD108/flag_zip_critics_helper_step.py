# expect-before: error modified by an inplace operation
# A SAC agent keeps its critics in an nn.ModuleList and one optimizer per
# critic in a list built by a comprehension. The policy loss is the minimum
# over the critics, called as the variable of a comprehension; each critic
# then steps through a helper called in a loop over
# zip(losses, optimizers, critics), and the policy loss is backwarded after:
# its graph saved critic weights the steps changed in place. Which entry
# steps which critic is inferred: reported without a safe fix.
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
        policy_loss = self._compute_policy_loss(obs)
        critic_losses = self._compute_critic_loss(obs, act, target)
        for loss, c_opt, critic in zip(critic_losses, self.critic_opts, self.critics):
            self._perform_update(loss, c_opt, critic)
        self._perform_update(policy_loss, self.policy_opt, self.policy)
        return policy_loss.item()


agent = SACAgent()
for it in range(ITERS):
    print(it, agent.update(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1)))
