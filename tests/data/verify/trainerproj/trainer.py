# A Solver in its own file: the networks arrive in __init__, the losses come
# from losses.py, the loop is in main.py. What the analysis knows about
# trainer.py depends on those two files.
import torch
from losses import gan_losses, gen_loss


class Solver:
    def __init__(self, gen, disc, cfg):
        self.gen = gen
        self.disc = disc
        self.g_opt = torch.optim.Adam(self.gen.parameters(), lr=cfg.lr)
        self.d_opt = torch.optim.Adam(self.disc.parameters(), lr=cfg.lr)
        self.history = []
        self.total = 0

    def d_step(self, real, fake):
        self.d_opt.zero_grad()
        loss, r, f = gan_losses(self.disc(real), self.disc(fake))
        loss.backward()
        self.d_opt.step()
        return loss

    def g_step(self, fake):
        self.g_opt.zero_grad()
        loss = gen_loss(self.disc(fake))
        loss.backward()
        self.g_opt.step()
        return loss

    def step(self, real, z):
        fake = self.gen(z)
        d_loss = self.d_step(real, fake)
        g_loss = self.g_step(fake)
        self.history.append(d_loss)
        self.total += g_loss
        return d_loss, g_loss
