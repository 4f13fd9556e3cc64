# WGAN-GP (create_graph=True in the penalty) with two optimizers, both zeroed
# once at the top of the iteration; the D step runs first and G's step is
# not zeroed again. G's .grad therefore holds the D step's gradient through
# `fake` when opt_g steps: D(fake.detach()) would change G's update. Only
# retain_graph=True on the D backward keeps the reference's numbers.
import torch
import torch.nn as nn


def penalty(D, real, fake):
    a = torch.rand(real.size(0), 1)
    x = (a * real + (1 - a) * fake).requires_grad_(True)
    g, = torch.autograd.grad(D(x).sum(), x, create_graph=True)
    return ((g.norm(2, dim=1) - 1) ** 2).mean()


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
    for step in range(6):
        opt_g.zero_grad()
        opt_d.zero_grad()
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        d_loss = D(fake).mean() - D(real).mean() + 10 * penalty(D, real, fake.detach())
        d_loss.backward()
        opt_d.step()
        g_loss = -D(fake).mean()
        g_loss.backward()
        opt_g.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
