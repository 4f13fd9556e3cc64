import torch
import torch.nn.functional as F

from models import GAN


class Trainer:
    def __init__(self, model):
        self.G = model.G
        self.D = model.D
        self.opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(self, real):
        self.opt.zero_grad()
        fake = self.G(torch.randn(real.size(0), 4))
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(fake)).mean()
        d_loss.backward()
        g_loss = F.softplus(-self.D(fake)).mean()
        g_loss.backward()
        self.opt.step()
        return d_loss.item(), g_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(GAN())
    for it in range(6):
        print(trainer.step(torch.randn(16, 8)))
