import torch
import torch.nn.functional as F


class CGANTrainer:
    def __init__(self, G, D, opt_g, opt_d):
        self.G, self.D = G, D
        self.opt_g, self.opt_d = opt_g, opt_d

    def step(self, real, labels):
        fake = self.G(torch.randn(real.size(0), 4), labels)
        self.opt_d.zero_grad()
        d_loss = F.softplus(-self.D(real, labels)).mean() + F.softplus(self.D(fake, labels)).mean()
        d_loss.backward()
        self.opt_d.step()
        self.opt_g.zero_grad()
        g_loss = F.softplus(-self.D(fake, labels)).mean()
        g_loss.backward()
        self.opt_g.step()
        return d_loss.item(), g_loss.item()
