# expect-before: runs
# Each step samples its own fake batch: the D step and the G step share no
# graph through the generator.
import os

import torch
from torch import nn, optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(steps, batch=32):
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
    bce = nn.BCEWithLogitsLoss()
    opt_g = optim.Adam(G.parameters(), lr=1e-3)
    opt_d = optim.Adam(D.parameters(), lr=1e-3)
    ones = torch.ones(batch, 1)
    zeros = torch.zeros(batch, 1)
    for step in range(steps):
        real = torch.randn(batch, 2) * 0.3 + 0.5
        fake = G(torch.randn(batch, 4))
        opt_d.zero_grad()
        d_loss = bce(D(real), ones) + bce(D(fake), zeros)
        d_loss.backward()
        opt_d.step()

        fake = G(torch.randn(batch, 4))
        opt_g.zero_grad()
        g_loss = bce(D(fake), ones)
        g_loss.backward()
        opt_g.step()
        print(f"{step} d {d_loss.item():.6f} g {g_loss.item():.6f}")
    return G, D


if __name__ == "__main__":
    torch.manual_seed(0)
    G, D = train(ITERS)
    print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f} "
          f"{sum(p.sum().item() for p in D.parameters()):.6f}")
