# expect-before: error modified by an inplace operation
# A SAC agent keeps two critics in an nn.ModuleList and one optimizer per
# critic in a list built by a comprehension over them. The policy loss runs
# through the first critic before the critic steps and is backwarded after:
# its graph saved critic weights the step changed in place. Which entry of
# the list steps which critic is inferred, so it is reported without a safe fix.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Agent:
    def __init__(self):
        self.policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
        self.critics = nn.ModuleList([nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1)) for _ in range(2)])
        self.critic_opts = [torch.optim.Adam(critic.parameters(), lr=1e-3) for critic in self.critics]
        self.policy_opt = torch.optim.Adam(self.policy.parameters(), lr=1e-3)

    def update(self, obs, act, target):
        new_act = self.policy(obs)
        policy_loss = -self.critics[0](torch.cat([obs, new_act], 1)).mean()
        for i in range(2):
            q_loss = (self.critics[i](torch.cat([obs, act], 1)) - target).pow(2).mean()
            self.critic_opts[i].zero_grad()
            q_loss.backward()
            self.critic_opts[i].step()
        self.policy_opt.zero_grad()
        policy_loss.backward()
        self.policy_opt.step()
        return policy_loss.item()


agent = Agent()
for it in range(ITERS):
    print(f"{it} policy {agent.update(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1)):.6f}")
