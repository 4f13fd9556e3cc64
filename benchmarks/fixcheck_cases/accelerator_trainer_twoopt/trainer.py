import torch
import torch.nn.functional as F


class GANTrainer:
    def __init__(self, accelerator, G, D, opt_g, opt_d):
        self.accelerator = accelerator
        self.G, self.D, self.opt_g, self.opt_d = accelerator.prepare(G, D, opt_g, opt_d)

    def train_step(self, real):
        fake = self.G(torch.randn(real.size(0), 4))
        self.opt_d.zero_grad()
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(fake)).mean()
        self.accelerator.backward(d_loss)
        self.opt_d.step()
        self.opt_g.zero_grad()
        g_loss = F.softplus(-self.D(fake)).mean()
        self.accelerator.backward(g_loss)
        self.opt_g.step()
        return d_loss.item(), g_loss.item()
