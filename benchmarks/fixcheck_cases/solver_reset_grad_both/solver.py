import torch
import torch.nn.functional as F


class Solver:
    def __init__(self, G, D, g_lr, d_lr):
        self.G = G
        self.D = D
        self.g_optimizer = torch.optim.Adam(self.G.parameters(), g_lr, betas=(0.5, 0.999))
        self.d_optimizer = torch.optim.Adam(self.D.parameters(), d_lr, betas=(0.5, 0.999))

    def reset_grad(self):
        """Reset the gradient buffers."""
        self.g_optimizer.zero_grad()
        self.d_optimizer.zero_grad()

    def train_step(self, real):
        self.g_optimizer.zero_grad()
        fake = self.G(torch.randn(real.size(0), 4))
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(fake)).mean()
        self.reset_grad()
        d_loss.backward()
        self.d_optimizer.step()
        g_loss = F.softplus(-self.D(fake)).mean()
        self.reset_grad()
        g_loss.backward()
        self.g_optimizer.step()
        return d_loss.item(), g_loss.item()
