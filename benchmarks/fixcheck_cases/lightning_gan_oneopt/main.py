# A Lightning-style module (a stand-in in lite.py) with manual optimisation:
# configure_optimizers returns ONE optimizer over self.parameters() (G and D),
# training_step calls manual_backward twice before one step. Both losses'
# gradients are used: G learns from the D loss too. Correct: retain_graph=True
# on the first manual_backward (AD105); D(fake.detach()) would be wrong.
import torch
import torch.nn as nn
import torch.nn.functional as F

from lite import LiteModule


class GAN(LiteModule):
    def __init__(self):
        super().__init__()
        self.G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        opt.zero_grad()
        fake = self.G(torch.randn(batch.size(0), 4))
        d_loss = F.softplus(-self.D(batch)).mean() + F.softplus(self.D(fake)).mean()
        self.manual_backward(d_loss)
        g_loss = F.softplus(-self.D(fake)).mean()
        self.manual_backward(g_loss)
        opt.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    m = GAN()
    m.fit([torch.randn(16, 8) for _ in range(6)])
    print(sum(p.sum().item() for p in m.parameters()))
