# expect-before: runs
# The trainer of flag_critic_pass_leaks_into_autoencoder done right: the
# critic's loss scores the reconstruction detached, so its backward reaches
# the critic only and the autoencoder learns from its own loss alone.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.ae = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 4))
        self.critic = nn.Linear(4, 1)
        self.opt_ae = torch.optim.SGD(self.ae.parameters(), lr=0.1)
        self.opt_critic = torch.optim.SGD(self.critic.parameters(), lr=0.1)

    def train(self, steps):
        for i in range(steps):
            x = torch.randn(8, 4)
            recon = self.ae(x)
            score_real = self.critic(x)
            ae_loss = (recon - x).pow(2).mean() - 0.1 * self.critic(recon).mean()
            critic_loss = torch.relu(1.0 - score_real).mean() + torch.relu(1.0 + self.critic(recon.detach())).mean()
            self.opt_ae.zero_grad()
            ae_loss.backward()
            self.opt_critic.zero_grad()
            critic_loss.backward()
            self.opt_ae.step()
            self.opt_critic.step()
        return ae_loss, critic_loss


trainer = Trainer()
first, second = trainer.train(ITERS)
print(f"{first.item():.6f} {second.item():.6f}")
print(f"{trainer.ae[0].weight.sum().item():.6f}")
