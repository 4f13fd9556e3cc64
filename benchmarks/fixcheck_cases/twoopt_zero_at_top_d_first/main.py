import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_G = torch.optim.SGD(G.parameters(), lr=0.05)
    opt_D = torch.optim.SGD(D.parameters(), lr=0.05)
    for i in range(6):
        opt_G.zero_grad()
        opt_D.zero_grad()
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        d_loss.backward()
        opt_D.step()
        g_loss = F.softplus(-D(fake)).mean()
        g_loss.backward()
        opt_G.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
