# expect-before: error modified by an inplace operation
# A relativistic GAN step as a free function: it trains the critic (retaining
# the graph of `d_real`), steps it, and returns the generator loss built from
# a new critic forward on the fakes and the `d_real` kept from before the step.
# The caller's backward of that loss walks critic weights the step changed.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def relativistic_losses(gen, critic, critic_opt, real, z):
    fake = gen(z)
    critic_opt.zero_grad()
    d_real = critic(real)
    d_fake = critic(fake.detach())
    loss_d = F.softplus(d_fake - d_real).mean()
    loss_d.backward(retain_graph=True)
    critic_opt.step()
    g_fake = critic(fake)
    loss_g = F.softplus(d_real - g_fake).mean()
    return loss_g, loss_d.item()


torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 4))
D = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
opt_g = torch.optim.SGD(G.parameters(), lr=0.05)
opt_d = torch.optim.SGD(D.parameters(), lr=0.05)
for i in range(ITERS):
    opt_g.zero_grad()
    g_loss, d_value = relativistic_losses(G, D, opt_d, torch.randn(8, 4) + 1, torch.randn(8, 4))
    g_loss.backward()
    opt_g.step()
    print(f"{i} g {g_loss.item():.6f} d {d_value:.6f}")
print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f}")
