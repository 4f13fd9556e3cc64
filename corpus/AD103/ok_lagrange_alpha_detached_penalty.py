# expect-before: runs
# A conservative critic update with a learned Lagrange multiplier, done right:
# the multiplier's pass is built on the penalty's gap detached (times
# log_alpha.exp()), so its backward reaches only log_alpha, and the critic's
# loss alone trains the critic. Nothing to report.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class ConservativeCritic:
    def __init__(self, critic, log_alpha, critic_optim, alpha_optim, threshold=1.0):
        self.critic = critic
        self.log_alpha = log_alpha
        self.critic_optim = critic_optim
        self.alpha_optim = alpha_optim
        self.threshold = threshold

    def update_critic(self, obs, target):
        self.critic_optim.zero_grad()
        loss = self.compute_critic_loss(obs, target)
        loss.backward()
        self.critic_optim.step()
        return loss.item()

    def compute_critic_loss(self, obs, target):
        q = self.critic(obs)
        td_loss = (q - target).pow(2).mean()
        gap = torch.logsumexp(q, dim=0) - q.mean() - self.threshold
        penalty = self.log_alpha.exp().clamp(0, 1e6) * gap
        self.update_alpha(gap.detach())
        return td_loss + penalty.sum()

    def update_alpha(self, gap):
        self.alpha_optim.zero_grad()
        loss = -(self.log_alpha.exp() * gap).mean()
        loss.backward()
        self.alpha_optim.step()


def main():
    critic = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
    log_alpha = nn.Parameter(torch.zeros(1))
    algo = ConservativeCritic(critic, log_alpha, torch.optim.SGD(critic.parameters(), lr=0.05),
                              torch.optim.SGD([log_alpha], lr=0.05))
    for it in range(ITERS):
        obs = torch.randn(20, 6)
        print(f"{it} critic loss {algo.update_critic(obs, obs[:, :1]):.6f} alpha {log_alpha.exp().item():.6f}")


if __name__ == "__main__":
    main()
