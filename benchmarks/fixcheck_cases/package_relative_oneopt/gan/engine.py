import torch

from .losses import d_loss_fn, g_loss_fn


class Engine:
    def __init__(self, nets, opt):
        self.G = nets["G"]
        self.D = nets["D"]
        self.opt = opt

    def step(self, real):
        self.opt.zero_grad()
        fake = self.G(torch.randn(real.size(0), 4))
        d_loss = d_loss_fn(self.D(real), self.D(fake))
        d_loss.backward()
        g_loss = g_loss_fn(self.D(fake))
        g_loss.backward()
        self.opt.step()
        return d_loss.item(), g_loss.item()
