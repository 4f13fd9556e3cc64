# G and D share a trunk module (the first layers of both), and each optimizer
# owns its whole network, so the trunk is in BOTH optimizers. The D backward
# reaches the trunk twice: through D's own use and through G's use on the
# noise (via fake). opt_d steps the trunk with both. G's head gradients are
# zeroed before G's step, which makes D(fake.detach()) look right, but it
# drops the trunk's gradient through G from opt_d's step. Correct:
# retain_graph=True on the D backward.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, trunk):
        super().__init__()
        self.trunk = trunk
        self.head = nn.Linear(16, 8)

    def forward(self, z):
        return self.head(self.trunk(z))


class Discriminator(nn.Module):
    def __init__(self, trunk):
        super().__init__()
        self.trunk = trunk
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        return self.head(self.trunk(x))


def main():
    torch.manual_seed(0)
    trunk = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
    G, D = Generator(trunk), Discriminator(trunk)
    opt_g = torch.optim.SGD(G.parameters(), lr=0.05)
    opt_d = torch.optim.SGD(D.parameters(), lr=0.05)
    for _ in range(6):
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 8))
        opt_d.zero_grad()
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.softplus(-D(fake)).mean()
        g_loss.backward()
        opt_g.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
