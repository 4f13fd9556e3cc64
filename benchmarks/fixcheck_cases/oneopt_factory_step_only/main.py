import torch
import torch.nn as nn
import torch.nn.functional as F

from optim_setup import make_optimizer


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = make_optimizer(G, D)
    for i in range(6):
        G.zero_grad()
        D.zero_grad()
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        d_loss.backward()
        g_loss = F.softplus(-D(fake)).mean()
        g_loss.backward()
        opt.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
