# accelerator.backward(loss, retain_graph=True) on every backward of a GAN
# step with two optimizers: the D backward needs it (the G loss reuses fake),
# the G backward does not (nothing uses its graph after it). Correct: drop
# retain_graph from the G backward only (AD104); the numbers do not change.
import torch
import torch.nn as nn
import torch.nn.functional as F

from accel import Accelerator


def main():
    torch.manual_seed(0)
    accelerator = Accelerator()
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    G, D, opt_g, opt_d = accelerator.prepare(G, D, opt_g, opt_d)
    for _ in range(6):
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        opt_d.zero_grad()
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        accelerator.backward(d_loss, retain_graph=True)
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.softplus(-D(fake)).mean()
        accelerator.backward(g_loss, retain_graph=True)
        opt_g.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
