# WGAN-GP whose generator loss reuses the fake batch of the critic step. The
# critic backward (its loss includes a gradient penalty through
# autograd.grad(create_graph=True) on the detached fake) frees G's graph
# through D(fake); G's gradients from it are zeroed before G's step.
# Correct: D(fake.detach()) in the critic loss (AD103) or retain_graph=True on
# the critic backward; both match the reference.
import torch
import torch.nn as nn

from losses import gradient_penalty


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
    for step in range(6):
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        d_loss = D(fake).mean() - D(real).mean() + 10.0 * gradient_penalty(D, real, fake.detach())
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = -D(fake).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
