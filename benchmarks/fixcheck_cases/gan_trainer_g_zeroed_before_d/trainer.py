import torch
import torch.nn.functional as F


class GANTrainer:
    def __init__(self, G, D):
        self.G, self.D = G, D
        self.opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
        self.opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)

    def zero(self):
        self.opt_g.zero_grad()
        self.opt_d.zero_grad()

    def d_step(self, real, fake):
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(fake)).mean()
        d_loss.backward()
        self.opt_d.step()
        return d_loss

    def g_step(self, fake):
        g_loss = F.softplus(-self.D(fake)).mean()
        g_loss.backward()
        self.opt_g.step()
        return g_loss

    def step(self, real, z):
        self.zero()
        fake = self.G(z)
        d = self.d_step(real, fake)
        g = self.g_step(fake)
        return d.item(), g.item()
