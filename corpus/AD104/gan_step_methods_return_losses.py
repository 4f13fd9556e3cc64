# expect-before: runs
# autodetach-test: unsafe
# A GAN trainer class whose private step methods return their losses:
# `_disc_step` backwards the critic's loss (the fake cut with `.detach()`) with
# retain_graph=True and returns the three losses; `train_step` binds them to
# names, runs `_gen_step`, which makes a new fake and a new critic forward, and
# reads the critic's losses only through `float()`. No later backward walks the
# retained graph: the retain keeps the critic's saved activations for nothing.
# That no other file calls `_disc_step` (and backwards what it returns) is
# inferred: the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GanTrainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 4))
        self.critic = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        self.opt_g = torch.optim.SGD(self.gen.parameters(), lr=0.05)
        self.opt_c = torch.optim.SGD(self.critic.parameters(), lr=0.05)

    def _disc_step(self, z, real):
        self.opt_c.zero_grad()
        fake = self.gen(z)
        c_real = self.critic(real).mean()
        c_fake = self.critic(fake.detach()).mean()
        c_loss = c_fake - c_real
        c_loss.backward(retain_graph=True)
        self.opt_c.step()
        return c_real, c_fake, c_loss

    def _gen_step(self, z):
        self.opt_g.zero_grad()
        fake = self.gen(z)
        g_loss = -self.critic(fake).mean()
        g_loss.backward()
        self.opt_g.step()
        return g_loss

    def train_step(self, z, real):
        c_real, c_fake, c_loss = self._disc_step(z, real)
        g_loss = self._gen_step(z)
        return float(c_loss), float(c_real - c_fake), float(g_loss)


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = GanTrainer()
    for step in range(ITERS):
        c, gap, g = trainer.train_step(torch.randn(8, 2), torch.randn(8, 4) + 1.0)
        print(step, f"{c:.6f} {gap:.6f} {g:.6f}")
