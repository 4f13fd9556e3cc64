import torch
import torch.nn.functional as F


def train(G, D, opt_g, opt_d, steps):
    for _ in range(steps):
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        d_loss.backward()
        opt_d.step()
        opt_d.zero_grad()
        g_loss = F.softplus(-D(fake)).mean()
        g_loss.backward()
        opt_g.step()
        opt_g.zero_grad()
