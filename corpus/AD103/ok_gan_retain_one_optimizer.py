# expect-before: runs
# The same loop with one optimizer over G and D, stepped once after both
# backwards: the gradients D's loss puts into G are used, so
# `retain_graph=True` is the right fix and a detach would silently stop G
# from learning from D's loss. Nothing to report.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

G = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
D = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(list(G.parameters()) + list(D.parameters()), lr=0.01)
bce = nn.BCEWithLogitsLoss()

for step in range(ITERS):
    real = torch.randn(16, 4) + 1.0
    fake = G(torch.randn(16, 8))
    opt.zero_grad()
    d_loss = bce(D(real), torch.ones(16, 1)) + bce(D(fake), torch.zeros(16, 1))
    d_loss.backward(retain_graph=True)
    g_loss = bce(D(fake), torch.ones(16, 1))
    g_loss.backward()
    opt.step()

print(f"{sum(p.sum().item() for p in G.parameters()):.6f} {sum(p.sum().item() for p in D.parameters()):.6f}")
