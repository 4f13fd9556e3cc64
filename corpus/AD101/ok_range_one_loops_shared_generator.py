# expect-before: runs
# An adversarial-perturbation GAN's batch step, written as two `for i in
# range(1)` blocks (a leftover of a configurable number of D and G updates):
# the D block builds the perturbation, the G block backwards the adversarial
# term with retain_graph=True because the perturbation-norm loss walks the
# same generator output next. Each block runs once: nothing an iteration
# binds is read by a later one, so no graph crosses iterations, and the
# retain is needed.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

gen = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 8))
disc = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3)


def train_batch(x):
    for i in range(1):
        perturbation = gen(x)
        adv = torch.clamp(perturbation, -0.3, 0.3) + x
        opt_d.zero_grad()
        real = disc(x)
        loss_real = F.mse_loss(real, torch.ones_like(real))
        loss_real.backward()
        fake = disc(adv.detach())
        loss_fake = F.mse_loss(fake, torch.zeros_like(fake))
        loss_fake.backward()
        opt_d.step()
    for i in range(1):
        opt_g.zero_grad()
        fake = disc(adv)
        loss_g_fake = F.mse_loss(fake, torch.ones_like(fake))
        loss_g_fake.backward(retain_graph=True)
        loss_perturb = perturbation.view(perturbation.shape[0], -1).norm(dim=1).mean()
        loss_perturb.backward()
        opt_g.step()
    return loss_g_fake.item(), loss_perturb.item()


for step in range(ITERS):
    g, p = train_batch(torch.randn(32, 8))
    print(f"{step} g {g:.6f} perturb {p:.6f}")
print(f"checksum {sum(q.sum().item() for q in gen.parameters()):.6f}")
