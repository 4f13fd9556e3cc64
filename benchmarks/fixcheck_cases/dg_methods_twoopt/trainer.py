import torch
import torch.nn.functional as F


class GANTrainer:
    def __init__(self, G, D, lr=1e-3):
        self.G, self.D = G, D
        self.opt_g = torch.optim.Adam(G.parameters(), lr=lr, betas=(0.5, 0.999))
        self.opt_d = torch.optim.Adam(D.parameters(), lr=lr, betas=(0.5, 0.999))

    def d_step(self, real, fake):
        self.opt_d.zero_grad()
        loss = F.softplus(self.D(fake)).mean() + F.softplus(-self.D(real)).mean()
        loss.backward()
        self.opt_d.step()
        return loss.item()

    def g_step(self, fake):
        self.opt_g.zero_grad()
        loss = F.softplus(-self.D(fake)).mean()
        loss.backward()
        self.opt_g.step()
        return loss.item()

    def train_step(self, real):
        fake = self.G(torch.randn(real.size(0), 4))
        ld = self.d_step(real, fake)
        lg = self.g_step(fake)
        return ld, lg
