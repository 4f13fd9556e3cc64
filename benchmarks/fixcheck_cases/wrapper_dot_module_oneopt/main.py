# A DataParallel-like wrapper (parallel.py) holds the GAN in .module; the
# single optimizer is built over the wrapper's parameters, and the loop calls
# net.module.G / net.module.D. One optimizer owns both networks: G learns
# from the D loss too. Correct: retain_graph=True on the first backward.
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
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for _ in range(6):
        real = torch.randn(16, 8)
        opt.zero_grad()
        fake = net.module.G(torch.randn(16, 4))
        d_loss = F.softplus(-net.module.D(real)).mean() + F.softplus(net.module.D(fake)).mean()
        d_loss.backward()
        g_loss = F.softplus(-net.module.D(fake)).mean()
        g_loss.backward()
        opt.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
