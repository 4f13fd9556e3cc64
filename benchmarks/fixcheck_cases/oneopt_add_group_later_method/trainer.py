import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, G, lr):
        self.G = G
        self.D = None
        self.opt = torch.optim.Adam(G.parameters(), lr=lr)

    def attach_critic(self, D, lr):
        self.D = D
        self.opt.add_param_group({"params": D.parameters(), "lr": lr})

    def step(self, real):
        self.opt.zero_grad()
        fake = self.G(torch.randn(real.size(0), 4))
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(fake)).mean()
        d_loss.backward()
        g_loss = F.softplus(-self.D(fake)).mean()
        g_loss.backward()
        self.opt.step()
        return d_loss.item(), g_loss.item()
