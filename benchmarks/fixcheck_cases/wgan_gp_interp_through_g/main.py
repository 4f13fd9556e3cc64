# WGAN-GP whose gradient penalty interpolates with the NON-detached fake, and
# whose generator loss reuses fake. The critic backward frees G's graph twice
# over: through D(fake) and through the penalty's interpolates. G's grads are
# zeroed before G's step. A fix must cut (or retain) both paths: detaching
# only D(fake) still crashes. Correct: retain_graph=True on the critic
# backward, or fake.detach() in both critic uses.
import torch
import torch.nn as nn

from losses import critic_loss


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
    for _ in range(6):
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        opt_d.zero_grad()
        d_loss = critic_loss(D, real, fake)
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = -D(fake).mean()
        g_loss.backward()
        opt_g.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
