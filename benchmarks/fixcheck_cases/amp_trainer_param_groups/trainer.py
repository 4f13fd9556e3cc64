import torch
import torch.nn.functional as F


class AmpTrainer:
    def __init__(self, generator, discriminator, lr=1e-3):
        self.G = generator
        self.D = discriminator
        self.optimizer = torch.optim.Adam([
            {"params": self.G.parameters()},
            {"params": self.D.parameters(), "lr": lr / 2},
        ], lr=lr)
        self.scaler = torch.amp.GradScaler("cpu", init_scale=256.0)

    def step(self, real):
        self.optimizer.zero_grad()
        fake = self.G(torch.randn(real.size(0), 4))
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(fake)).mean()
        self.scaler.scale(d_loss).backward()
        g_loss = F.softplus(-self.D(fake)).mean()
        self.scaler.scale(g_loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return d_loss.item(), g_loss.item()
