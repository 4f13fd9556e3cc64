import torch
from torch import nn


class InpaintTrainer(nn.Module):
    """Builds every loss of one step from one forward of the critic."""

    def __init__(self, width=6):
        super().__init__()
        self.netG = nn.Sequential(nn.Linear(width * 2, width), nn.Tanh())
        self.netD = nn.Linear(width, 1)
        self.l1_weight = 0.5
        self.optimizer_g = torch.optim.Adam(self.netG.parameters(), lr=0.01)
        self.optimizer_d = torch.optim.Adam(self.netD.parameters(), lr=0.01)

    def forward(self, x, mask, real):
        losses = {}
        fake = self.netG(torch.cat([x, mask], 1))
        filled = fake * mask + x * (1.0 - mask)

        # one critic forward, on the fakes with their graph, feeds both players' terms
        real_pred, fake_pred = self.score(self.netD, real, filled)
        losses["d_real"] = torch.relu(1.0 - real_pred).mean()
        losses["d_fake"] = torch.relu(1.0 + fake_pred).mean()
        losses["l1"] = (fake - real).abs().mean() * self.l1_weight
        losses["g_adv"] = -fake_pred.mean()
        return losses, filled

    def score(self, net, real, fake):
        out = net(torch.cat([real, fake], 0))
        return torch.split(out, real.size(0), dim=0)
