# WGAN-GP written correctly: n_critic critic steps on fake.detach() with a
# gradient penalty (autograd.grad with create_graph=True, in losses.py), then
# a generator step on a fresh sample. Correct: no finding, no change.
import torch
import torch.nn as nn

from losses import gradient_penalty


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
    for step in range(4):
        for _ in range(3):
            real = torch.randn(16, 8)
            fake = G(torch.randn(16, 4)).detach()
            d_loss = D(fake).mean() - D(real).mean() + 10.0 * gradient_penalty(D, real, fake)
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
        g_loss = -D(G(torch.randn(16, 4))).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
