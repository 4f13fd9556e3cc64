# A GAN whose D step says `fake.detach()` as a statement (a no-op: the result
# is discarded), so the D backward frees G's graph and the G step crashes.
# Assigning it (`fake = fake.detach()`, AD110's fix) cuts G from its OWN loss
# too: G would never learn. The reference (retain_graph) trains G. A correct
# fix detaches only in the D loss: D(fake.detach()) (AD103); AD110's rewrite
# must not be applied as a safe fix here.
import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    for _ in range(6):
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        opt_d.zero_grad()
        fake.detach()
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
