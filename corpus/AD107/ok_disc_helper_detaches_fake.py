# expect-before: runs
# A GAN loop that trains the discriminator several times on each batch of generated
# images. The discriminator's loss comes from a helper of this file that runs the
# discriminator on `fake.detach()` (its targets made with `new_full`), so the
# repeated discriminator backwards never reach the generator's graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
disc_net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())
gen_net = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 4))
bce = nn.BCELoss()
disc_opt = torch.optim.Adam(disc_net.parameters(), lr=1e-3)
gen_opt = torch.optim.Adam(gen_net.parameters(), lr=1e-3)


def discriminator_loss(fake, real):
    real_target = real.new_full((real.shape[0], 1), 1.0)
    fake_target = fake.new_full((fake.shape[0], 1), 0.0)
    return (bce(disc_net(real), real_target) + bce(disc_net(fake.detach()), fake_target)) / 2


def generator_loss(fake):
    out = disc_net(fake)
    return bce(out, out.new_full(out.shape, 1.0))


for step in range(ITERS):
    real = torch.randn(6, 4)
    gen_opt.zero_grad()
    fake = gen_net(torch.randn(6, 2))
    g_loss = generator_loss(fake)
    g_loss.backward()
    gen_opt.step()
    for _ in range(3):
        disc_opt.zero_grad()
        d_loss = discriminator_loss(fake, real)
        d_loss.backward()
        disc_opt.step()
print(f"checksum {sum(p.sum().item() for p in disc_net.parameters()) + ITERS:.6f}")
