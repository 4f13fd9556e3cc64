import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, G, D, optimizer):
        self.G = G
        self.D = D
        self.optimizer = optimizer

    def step(self, real):
        self.optimizer.zero_grad()
        fake = self.G(torch.randn(real.size(0), 4))
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(fake)).mean()
        d_loss.backward()
        g_loss = F.softplus(-self.D(fake)).mean()
        g_loss.backward()
        self.optimizer.step()
        return d_loss.item(), g_loss.item()
