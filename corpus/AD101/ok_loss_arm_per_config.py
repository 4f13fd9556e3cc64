# expect-before: runs
# A GAN step whose discriminator loss is picked by a configuration string. One arm
# (`"none"`) never binds d_loss, but the loop never changes the configuration: an
# iteration that took it would have raised on the first pass, so d_loss is always
# this iteration's value when it is scaled and backwarded.
import os
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(args, gen, dis, opt_g, opt_d, batches):
    for step, real in enumerate(batches):
        fake = gen(torch.randn(real.size(0), 3)).detach()
        real_score, fake_score = dis(real), dis(fake)
        if args.loss == "hinge":
            d_loss = F.relu(1.0 - real_score).mean() + F.relu(1.0 + fake_score).mean()
        elif args.loss == "lsgan":
            d_loss = 0
            for score, target in ((real_score, 1.0), (fake_score, 0.0)):
                d_loss += ((score - target) ** 2).mean()
        elif args.loss == "none":
            pass
        else:
            raise NotImplementedError(args.loss)
        d_loss = d_loss / float(args.accumulate)
        d_loss.backward()
        if (step + 1) % args.accumulate == 0:
            opt_d.step()
            opt_d.zero_grad()

        g_loss = -dis(gen(torch.randn(real.size(0), 3))).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        if step % args.print_freq == 0:
            print(f"{step} d {d_loss.item():.6f} g {g_loss.item():.6f}")
            del g_loss
            del d_loss


torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 2))
discriminator = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
train(SimpleNamespace(loss="lsgan", accumulate=2, print_freq=1), generator, discriminator,
      torch.optim.SGD(generator.parameters(), lr=0.05), torch.optim.SGD(discriminator.parameters(), lr=0.05),
      [torch.randn(6, 2) for _ in range(ITERS)])
print(f"checksum {sum(p.sum().item() for p in discriminator.parameters()):.6f}")
