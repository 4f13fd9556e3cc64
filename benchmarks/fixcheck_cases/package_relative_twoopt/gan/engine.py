import torch

from .losses import d_loss_fn, g_loss_fn


class Engine:
    def __init__(self, nets, opts):
        self.G = nets["G"]
        self.D = nets["D"]
        self.opt_g = opts["G"]
        self.opt_d = opts["D"]

    def step(self, real):
        fake = self.G(torch.randn(real.size(0), 4))
        self.opt_d.zero_grad()
        d_loss = d_loss_fn(self.D(real), self.D(fake))
        d_loss.backward()
        self.opt_d.step()
        self.opt_g.zero_grad()
        g_loss = g_loss_fn(self.D(fake))
        g_loss.backward()
        self.opt_g.step()
        return d_loss.item(), g_loss.item()
