# expect-before: runs
# A GAN loop that met "Trying to backward through the graph a second time"
# and took the common advice: `retain_graph=True` on the discriminator's
# backward. D's loss reads `fake` undetached, so that backward still walks
# G's graph for gradients `opt_g.zero_grad()` clears before G's backward.
# Detaching `fake` on D's pass gives the same updates; the retain is then
# unneeded.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

G = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
D = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=0.01)
opt_d = torch.optim.Adam(D.parameters(), lr=0.01)
bce = nn.BCEWithLogitsLoss()

for step in range(ITERS):
    real = torch.randn(16, 4) + 1.0
    fake = G(torch.randn(16, 8))
    d_loss = bce(D(real), torch.ones(16, 1)) + bce(D(fake.detach()), torch.zeros(16, 1))
    opt_d.zero_grad()
    d_loss.backward(retain_graph=True)
    opt_d.step()
    g_loss = bce(D(fake), torch.ones(16, 1))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()

print(f"{sum(p.sum().item() for p in G.parameters()):.6f} {sum(p.sum().item() for p in D.parameters()):.6f}")
