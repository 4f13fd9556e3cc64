# expect-before: runs
# A soft actor-critic agent steps each network through `update_params`, a
# helper imported from utils.py that runs backward and the optimizer's step.
# The policy's loss is built after the critic's update, through the stepped
# critic: no backward walks weights saved before a step.
import os

import torch
from torch import nn

from utils import update_params

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Agent:
    def __init__(self):
        self.policy = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        self.critic = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
        self.policy_optim = torch.optim.Adam(self.policy.parameters(), lr=1e-3)
        self.critic_optim = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def critic_loss(self, obs, act, target_q):
        return (self.critic(torch.cat([obs, act], 1)) - target_q).pow(2).mean()

    def policy_loss(self, obs):
        return -self.critic(torch.cat([obs, torch.tanh(self.policy(obs))], 1)).mean()

    def learn(self, obs, act, target_q):
        q_loss = self.critic_loss(obs, act, target_q)
        update_params(self.critic_optim, self.critic, q_loss)
        pi_loss = self.policy_loss(obs)
        update_params(self.policy_optim, self.policy, pi_loss)
        return q_loss.item(), pi_loss.item()


agent = Agent()
for i in range(ITERS):
    q_loss, pi_loss = agent.learn(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1))
    print(f"{i} q {q_loss:.6f} pi {pi_loss:.6f}")
print(f"checksum {sum(p.sum().item() for p in agent.policy.parameters()):.6f}")
