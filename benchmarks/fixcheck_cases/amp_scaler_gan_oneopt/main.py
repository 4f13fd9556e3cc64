import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.Adam(itertools.chain(G.parameters(), D.parameters()), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    for step in range(6):
        real = torch.randn(16, 8)
        opt.zero_grad()
        fake = G(torch.randn(16, 4))
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        scaler.scale(d_loss).backward()
        g_loss = F.softplus(-D(fake)).mean()
        scaler.scale(g_loss).backward()
        scaler.step(opt)
        scaler.update()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
