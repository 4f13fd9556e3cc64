# Lightning-style manual optimisation (stand-in in lite.py), two optimizers,
# G step FIRST with gradient accumulation: opt_g steps and zeroes every second
# batch. The D step then reuses fake, whose G graph the G backward freed. G's
# gradients from the D loss are not zeroed before G's next step: they are
# accumulated with G's own. D(fake.detach()) would change G. Correct:
# retain_graph=True on the G backward. (G is one layer on the noise, so its
# step does not invalidate the kept graph and the reference runs.)
import torch
import torch.nn as nn
import torch.nn.functional as F

from lite import LiteModule


class GAN(LiteModule):
    def __init__(self):
        super().__init__()
        self.G = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))

    def configure_optimizers(self):
        return torch.optim.Adam(self.G.parameters(), lr=1e-3), torch.optim.Adam(self.D.parameters(), lr=1e-3)

    def training_step(self, batch, batch_idx):
        opt_g, opt_d = self.optimizers()
        fake = self.G(torch.randn(batch.size(0), 4))
        g_loss = F.softplus(-self.D(fake)).mean()
        self.manual_backward(g_loss)
        if batch_idx % 2 == 1:
            opt_g.step()
            opt_g.zero_grad()
        opt_d.zero_grad()
        d_loss = F.softplus(-self.D(batch)).mean() + F.softplus(self.D(fake)).mean()
        self.manual_backward(d_loss)
        opt_d.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    m = GAN()
    m.fit([torch.randn(16, 8) for _ in range(6)])
    print(sum(p.sum().item() for p in m.parameters()))
