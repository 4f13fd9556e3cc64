# expect-before: error Trying to backward through the graph a second time
# A 1-D toy GAN that updates the generator first. The generator step frees
# G's graph; the discriminator step then backpropagates `D(fake)` into it.
# G's gradients from the D loss are zeroed before the next G step, so the
# detach belongs in the D step, the later path.
import os

import torch
from torch import nn, optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(steps, batch=32):
    G = nn.Sequential(nn.Linear(4, 2), nn.Tanh())
    D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
    bce = nn.BCEWithLogitsLoss()
    opt_g = optim.SGD(G.parameters(), lr=0.05)
    opt_d = optim.SGD(D.parameters(), lr=0.05)
    ones = torch.ones(batch, 1)
    zeros = torch.zeros(batch, 1)
    for step in range(steps):
        z = torch.randn(batch, 4)
        real = torch.randn(batch, 2) * 0.3 + 0.5
        fake = G(z)

        opt_g.zero_grad()
        g_loss = bce(D(fake), ones)
        g_loss.backward()
        opt_g.step()

        opt_d.zero_grad()
        d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
        d_loss.backward()
        opt_d.step()
        print(f"{step} g {g_loss.item():.6f} d {d_loss.item():.6f}")
    return G, D


if __name__ == "__main__":
    torch.manual_seed(0)
    G, D = train(ITERS)
    print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f} "
          f"{sum(p.sum().item() for p in D.parameters()):.6f}")
