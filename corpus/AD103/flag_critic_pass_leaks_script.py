# expect-before: runs
# Notebook-style: the optimizers come back from a helper, the generator
# and the discriminator share one forward of the discriminator on the fake
# batch; the generator's pass keeps the graph, `opt_d.zero_grad()` clears
# what it left in the discriminator, and the discriminator's loss is then
# backwarded through the shared logits into the generator, whose gradients
# `opt_g.step()` applies. No automatic fix.
import os

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

gen = nn.Linear(3, 5)
disc = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))


def make_optimizers(lr):
    opt_g = torch.optim.Adam(gen.parameters(), lr=lr)
    opt_d = torch.optim.Adam(disc.parameters(), lr=lr)
    return opt_g, opt_d


opt_g, opt_d = make_optimizers(1e-3)
for step in range(ITERS):
    real = torch.randn(6, 5)
    fake = gen(torch.randn(6, 3))
    logits_fake = disc(fake)
    logits_real = disc(real)
    g_loss = F.binary_cross_entropy_with_logits(logits_fake, torch.ones_like(logits_fake))
    d_loss = F.binary_cross_entropy_with_logits(logits_real, torch.ones_like(logits_real)) + \
        F.binary_cross_entropy_with_logits(logits_fake, torch.zeros_like(logits_fake))
    opt_g.zero_grad()
    g_loss.backward(retain_graph=True)
    opt_d.zero_grad()
    d_loss.backward()
    opt_g.step()
    opt_d.step()
print(f"{g_loss.item():.6f} {d_loss.item():.6f}")
