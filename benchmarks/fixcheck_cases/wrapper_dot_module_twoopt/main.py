# Control for wrapper_dot_module_oneopt: one optimizer per network, through
# net.module.G / net.module.D. G's gradients from the D backward are zeroed
# before G's step. Correct: D(fake.detach()) in the D loss (AD103) or
# retain_graph=True on the D backward; both match the reference.
import torch
import torch.nn as nn
import torch.nn.functional as F

from parallel import DataParallelish


class GAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def main():
    torch.manual_seed(0)
    net = DataParallelish(GAN())
    opt_g = torch.optim.Adam(net.module.G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(net.module.D.parameters(), lr=1e-3)
    for _ in range(6):
        real = torch.randn(16, 8)
        opt_d.zero_grad()
        fake = net.module.G(torch.randn(16, 4))
        d_loss = F.softplus(-net.module.D(real)).mean() + F.softplus(net.module.D(fake)).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.softplus(-net.module.D(fake)).mean()
        g_loss.backward()
        opt_g.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
