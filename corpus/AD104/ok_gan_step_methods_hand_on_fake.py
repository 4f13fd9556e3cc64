# expect-before: runs
# The GAN trainer of gan_step_methods_return_losses.py, but `_disc_step` also
# returns the fake it built (not cut for the critic), and `_gen_step` takes
# that fake and backwards the generator's loss through the critic's graph of it
# (the generator's gradients of both passes add up before its step): the retain
# in `_disc_step` is what lets that second backward run.
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
        c_fake = self.critic(fake).mean()
        c_loss = c_fake - c_real
        c_loss.backward(retain_graph=True)
        self.opt_c.step()
        return c_real, fake, c_loss

    def _gen_step(self, fake):
        g_loss = -self.critic(fake).mean()
        g_loss.backward()
        self.opt_g.step()
        self.opt_g.zero_grad()
        return g_loss

    def train_step(self, z, real):
        c_real, fake, c_loss = self._disc_step(z, real)
        g_loss = self._gen_step(fake)
        return float(c_loss), float(c_real), float(g_loss)


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = GanTrainer()
    for step in range(ITERS):
        c, gap, g = trainer.train_step(torch.randn(8, 2), torch.randn(8, 4) + 1.0)
        print(step, f"{c:.6f} {gap:.6f} {g:.6f}")
