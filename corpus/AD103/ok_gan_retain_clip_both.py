# expect-before: runs
# The retain-silenced GAN loop, with one gradient norm clipped over G and D
# together after D's backward: the gradients D's loss puts into G enter that
# norm and scale D's step, so they are not discarded, and detaching `fake`
# on D's pass would change D's updates. Nothing to report.
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
    d_loss = bce(D(real), torch.ones(16, 1)) + bce(D(fake), torch.zeros(16, 1))
    opt_d.zero_grad()
    d_loss.backward(retain_graph=True)
    torch.nn.utils.clip_grad_norm_(nn.ModuleList([G, D]).parameters(), 0.5)
    opt_d.step()
    g_loss = bce(D(fake), torch.ones(16, 1))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()

print(f"{sum(p.sum().item() for p in G.parameters()):.6f} {sum(p.sum().item() for p in D.parameters()):.6f}")
