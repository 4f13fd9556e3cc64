# expect-before: runs
# An inpainting GAN keeps its losses in one dict rebuilt entry by entry each
# step: the D step backwards `losses["d_loss"]`, built on the detached
# completion, and steps D; the G losses are stored under other keys after it,
# with a new D forward, so no backward walks a graph built before a step and
# no entry keeps an earlier iteration's graph (deepfillv2-pytorch's train.py).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def gan_loss_d(real, fake):
    return torch.relu(1 - real).mean() + torch.relu(1 + fake).mean()


def gan_loss_g(fake):
    return -fake.mean()


def training_loop(generator, discriminator, g_optimizer, d_optimizer, batches, ae_weight=1.0):
    losses = {}
    log = {"d_loss": [], "g_loss": [], "ae_loss": []}
    for real in batches:
        mask = (torch.rand_like(real) > 0.7).float()
        out = generator(real * (1 - mask))
        complete = out * mask + real * (1 - mask)

        d_real, d_fake = discriminator(torch.cat([real, complete.detach()])).chunk(2)
        losses["d_loss"] = gan_loss_d(d_real, d_fake)
        d_optimizer.zero_grad()
        losses["d_loss"].backward()
        d_optimizer.step()

        losses["ae_loss"] = ae_weight * torch.mean(torch.abs(real - out))
        losses["g_loss"] = gan_loss_g(discriminator(complete))
        losses["g_loss"] = 0.5 * losses["g_loss"]
        losses["g_loss"] += losses["ae_loss"]
        g_optimizer.zero_grad()
        losses["g_loss"].backward()
        g_optimizer.step()

        for k in log:
            log[k].append(losses[k].item())
    return log


gen = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 6))
disc = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3)
data = [torch.randn(8, 6) for _ in range(ITERS)]
history = training_loop(gen, disc, opt_g, opt_d, data)
print("g " + " ".join(f"{v:.6f}" for v in history["g_loss"]))
print(f"checksum {sum(p.sum().item() for p in list(gen.parameters()) + list(disc.parameters())):.6f}")
