# expect-before: runs
# SAC's learned temperature: `self.log_alpha` is made in `__init__` by
# `torch.zeros(1, requires_grad=True, device=device)`, a leaf tensor that
# its own optimizer trains. Each iteration's alpha loss reads the leaf and
# builds a new graph; nothing built once is backwarded twice.
import os

import torch
import torch.nn as nn
import torch.optim as optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Agent:
    def __init__(self, obs_dim, act_dim, device, lr=0.01, auto_alpha=True):
        self.policy = nn.Linear(obs_dim, act_dim).to(device)
        self.policy_optimizer = optim.Adam(self.policy.parameters(), lr=lr)
        self.auto_alpha = auto_alpha
        if auto_alpha:
            self.target_entropy = -act_dim
            self.log_alpha = torch.zeros(1, requires_grad=True, device=device)
            self.alpha_optim = optim.Adam([self.log_alpha], lr=lr)
            self.alpha = self.log_alpha.cpu().exp().item()
        else:
            self.alpha = 0.2
            self.log_alpha, self.alpha_optim = None, None

    def train(self, batches):
        for obs in batches:
            log_prob = torch.log_softmax(self.policy(obs), 1).max(1)[0]
            policy_loss = (self.alpha * log_prob).mean()
            self.policy_optimizer.zero_grad()
            policy_loss.backward()
            if self.auto_alpha:
                alpha_loss = -(self.log_alpha * (log_prob + self.target_entropy).detach()).mean()
                self.alpha_optim.zero_grad()
                alpha_loss.backward()
                self.alpha_optim.step()
                self.alpha = self.log_alpha.cpu().exp().item()
            self.policy_optimizer.step()
            print(f"policy {policy_loss.item():.6f} alpha {self.alpha:.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = Agent(5, 3, torch.device("cpu"))
    agent.train([torch.randn(8, 5) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in agent.policy.parameters()):.6f}")
