import torch
import torch.nn.functional as F

from models import GAN


class Trainer:
    def __init__(self, model):
        self.G = model.G
        self.D = model.D
        self.opt_g = torch.optim.Adam(model.G.parameters(), lr=1e-3)
        self.opt_d = torch.optim.Adam(model.D.parameters(), lr=1e-3)

    def step(self, real):
        fake = self.G(torch.randn(real.size(0), 4))
        self.opt_d.zero_grad()
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(fake)).mean()
        d_loss.backward()
        self.opt_d.step()
        self.opt_g.zero_grad()
        g_loss = F.softplus(-self.D(fake)).mean()
        g_loss.backward()
        self.opt_g.step()
        return d_loss.item(), g_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(GAN())
    for it in range(6):
        print(trainer.step(torch.randn(16, 8)))
