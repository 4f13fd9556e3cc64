# The user already detached in the D step (right) but ALSO cut the
# generator's input to D in the G step via a helper that returns a detached
# copy (their bug, or their intent): G gets no gradient, no crash. The tool
# must not add or move cuts here; whatever it reports, the parameter
# updates of the original are the reference.
import torch
import torch.nn as nn
import torch.nn.functional as F


def frozen(t):
    return t.detach()


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    for it in range(6):
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        opt_d.zero_grad()
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake.detach())).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.softplus(-D(frozen(fake))).mean() + 0.1 * fake.pow(2).mean()
        g_loss.backward()
        opt_g.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
