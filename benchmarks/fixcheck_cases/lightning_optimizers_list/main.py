import torch
import torch.nn as nn
import torch.nn.functional as F

from lite import LiteModule


class GAN(LiteModule):
    def __init__(self):
        super().__init__()
        self.generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.discriminator = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))

    def configure_optimizers(self):
        return [torch.optim.Adam(self.discriminator.parameters(), lr=1e-3),
                torch.optim.Adam(self.generator.parameters(), lr=1e-3)]

    def training_step(self, batch, batch_idx):
        optimizers = self.optimizers()
        opt_d, opt_g = optimizers[0], optimizers[1]
        fake = self.generator(torch.randn(batch.size(0), 4))
        opt_d.zero_grad()
        d_loss = F.softplus(-self.discriminator(batch)).mean() + F.softplus(self.discriminator(fake)).mean()
        self.manual_backward(d_loss)
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.softplus(-self.discriminator(fake)).mean()
        self.manual_backward(g_loss)
        opt_g.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    m = GAN()
    m.fit([torch.randn(16, 8) for _ in range(6)])
    print(sum(p.sum().item() for p in m.parameters()))
