# expect-before: runs
# Soft actor-critic with learned temperatures held by a module whose forward
# returns its parameter: every loss is built first, then the temperature,
# policy and critic steps run in turn. The later losses read the temperatures
# only through exp(), which saves its output, not the parameter, so the
# temperature steps change nothing their backward needs.
import os

import torch
import torch.nn.functional as F

from nets import Critic, LogScale, Policy

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Agent:
    def __init__(self, policy, critic):
        self.policy = policy
        self.critic = critic
        self.log_alpha = LogScale(0.0)
        self.log_beta = LogScale(1.0)
        self.policy_opt = torch.optim.Adam(self.policy.parameters(), lr=3e-4)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=3e-4)
        self.alpha_opt = torch.optim.Adam(self.log_alpha.parameters(), lr=3e-4)
        self.beta_opt = torch.optim.Adam(self.log_beta.parameters(), lr=3e-4)

    def update(self, obs, act, target):
        new_act, log_pi = self.policy(obs)
        alpha_loss = -(self.log_alpha() * (log_pi - 1.0).detach()).mean()
        alpha = self.log_alpha().exp() * 0.5
        policy_loss = (alpha * log_pi - self.critic(obs, new_act)).mean()

        q = self.critic(obs, act)
        gap = (self.critic(obs, new_act.detach()) - q).mean()
        beta = torch.clamp(torch.exp(self.log_beta()), min=0.0, max=100.0)
        penalty = beta * (gap - 1.0)
        self.beta_opt.zero_grad()
        (-penalty).backward(retain_graph=True)
        self.beta_opt.step()
        critic_loss = F.mse_loss(q, target) + penalty

        self.alpha_opt.zero_grad()
        alpha_loss.backward()
        self.alpha_opt.step()

        self.policy_opt.zero_grad()
        policy_loss.backward()
        self.policy_opt.step()

        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()
        return policy_loss.item(), critic_loss.item()


torch.manual_seed(0)
agent = Agent(Policy(), Critic())
for it in range(ITERS):
    obs, act = torch.randn(16, 4), torch.rand(16, 2) * 2 - 1
    target = torch.randn(16)
    p, c = agent.update(obs, act, target)
    print(f"{it} policy {p:.6f} critic {c:.6f}")
print(f"checksum {sum(p.sum().item() for p in agent.policy.parameters()):.6f}")
