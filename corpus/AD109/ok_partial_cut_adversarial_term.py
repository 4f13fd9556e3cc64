# expect-before: runs
# The conditional GAN's generator step written correctly: the discriminator
# runs on the generator's output itself in the adversarial term (only the
# discriminator's own step detaches it), so both terms train the generator.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 4))
D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()

for it in range(ITERS):
    x, y = torch.randn(8, 4), torch.randn(8, 4)
    fake = G(x)
    opt_d.zero_grad()
    d_fake = D(torch.cat([x, fake.detach()], 1))
    d_real = D(torch.cat([x, y], 1))
    d_loss = bce(d_fake, torch.zeros_like(d_fake)) + bce(d_real, torch.ones_like(d_real))
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_fake = D(torch.cat([x, fake], 1))
    g_adv = bce(g_fake, torch.ones_like(g_fake))
    g_loss = (fake - y).abs().mean() + 0.1 * g_adv
    g_loss.backward()
    opt_g.step()
    print(f"d loss {d_loss.item():.6f} g loss {g_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f}")
