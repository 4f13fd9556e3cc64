# Lightning-like manual optimisation with toggle_optimizer: the G step runs
# first (G toggled: D's parameters do not require grad), then the D step
# reuses `fake`. D's loss backward walks into G's graph, freed by the G step.
# opt_g.zero_grad() comes before every G backward, so D(fake.detach()) is
# right and matches the reference.
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
        return (torch.optim.Adam(self.G.parameters(), lr=1e-3), torch.optim.Adam(self.D.parameters(), lr=1e-3))

    def training_step(self, real, idx):
        opt_g, opt_d = self.optimizers()
        self.toggle_optimizer(opt_g)
        fake = self.G(torch.randn(real.size(0), 4))
        g_loss = F.softplus(-self.D(fake)).mean()
        opt_g.zero_grad()
        self.manual_backward(g_loss)
        opt_g.step()
        self.untoggle_optimizer(opt_g)
        self.toggle_optimizer(opt_d)
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(fake)).mean()
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()
        self.untoggle_optimizer(opt_d)


def main():
    torch.manual_seed(0)
    GAN().fit([torch.randn(16, 8) for _ in range(6)])


if __name__ == "__main__":
    main()
