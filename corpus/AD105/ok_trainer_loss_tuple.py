# expect-before: runs
# A trainer computes the encoder's and the discriminator's losses in one
# helper that returns them as a tuple. The discriminator's loss is built on
# the encoder's output cut by .detach(), so the two backward passes share no
# graph: nothing needs retain_graph=True.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        torch.manual_seed(0)
        self.encoder = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
        self.critic = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
        self.e_opt = torch.optim.Adam(self.encoder.parameters(), lr=1e-3)
        self.c_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def losses(self, codes, target, prior):
        fit = (codes - target).pow(2).mean()
        fool = (self.critic(codes) - 1).pow(2).mean()
        real = (self.critic(prior) - 1).pow(2).mean()
        fake = self.critic(codes.detach()).pow(2).mean()
        return fit + 0.1 * fool, real + fake

    def train(self, steps):
        e_opt, c_opt = self.e_opt, self.c_opt
        for step in range(steps):
            x, target, prior = torch.randn(16, 6), torch.randn(16, 3), torch.randn(16, 3)
            codes = self.encoder(x)
            e_loss, c_loss = self.losses(codes, target, prior)
            e_opt.zero_grad()
            e_loss.backward()
            e_opt.step()
            c_opt.zero_grad()
            c_loss.backward()
            c_opt.step()
            print(f"{step} e {e_loss.item():.6f} c {c_loss.item():.6f}")


if __name__ == "__main__":
    t = Trainer()
    t.train(ITERS)
    print(f"checksum {sum(p.sum().item() for p in t.encoder.parameters()):.6f}")
