# expect-before: runs
# autodetach-test: unsafe
# A GAN step through a helper of another file (optim_utils.optimize) that
# hands `retain_graph` to its backward. The discriminator's loss scores
# `fake.detach()`, so the generator's step, which scores `fake` again with a
# new discriminator forward, walks none of the retained graph: the retain
# only keeps the discriminator's activations alive until the next batch.
# What the helper does with the flag is inferred from its code in another
# file, not walked: the fix is unsafe.
import os

import torch
from torch import nn

from optim_utils import optimize

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(gen, disc, batches, lr=1e-3):
    opt_g = torch.optim.Adam(gen.parameters(), lr=lr)
    opt_d = torch.optim.Adam(disc.parameters(), lr=lr)
    bce = nn.BCEWithLogitsLoss()
    for step, real in enumerate(batches):
        fake = gen(torch.randn(real.size(0), 4))
        pred_real, pred_fake = disc(real), disc(fake.detach())
        d_loss = bce(pred_real, torch.ones_like(pred_real)) + bce(pred_fake, torch.zeros_like(pred_fake))
        optimize(d_loss, opt_d, disc.parameters(), retain_graph=True)
        pred = disc(fake)
        g_loss = bce(pred, torch.ones_like(pred))
        optimize(g_loss, opt_g, gen.parameters())
        print(step, f"{d_loss.item():.6f}", f"{g_loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))
    disc = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    train(gen, disc, [torch.randn(8, 6) + 1.0 for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in gen.parameters()):.6f}")
