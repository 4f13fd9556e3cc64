import itertools

import torch
import torch.nn.functional as F


class GANTrainer:
    def __init__(self, G, D, lr=1e-3):
        self.G, self.D = G, D
        self.opt = torch.optim.Adam(itertools.chain(G.parameters(), D.parameters()), lr=lr)

    def d_step(self, real, fake):
        loss = F.softplus(self.D(fake)).mean() + F.softplus(-self.D(real)).mean()
        loss.backward()
        return loss.item()

    def g_step(self, fake):
        loss = F.softplus(-self.D(fake)).mean()
        loss.backward()
        return loss.item()

    def train_step(self, real):
        self.opt.zero_grad()
        fake = self.G(torch.randn(real.size(0), 4))
        ld = self.d_step(real, fake)
        lg = self.g_step(fake)
        self.opt.step()
        return ld, lg
