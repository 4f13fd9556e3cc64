# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# A GAN whose optimizers are wrapped in a warmup schedule (warmup.py):
# `sched_g.step_and_update_lr()` steps `opt_g`, as the wrapper's code shows.
# The generator is stepped first; the discriminator's loss then scores the
# same, undetached fakes, so its backward walks the generator weights that
# step changed in place (the generator loss kept the graph with
# retain_graph=True for it). The fix computes the fakes again after the
# step (with the stepped generator and new noise): unsafe, and the plainer
# fix is `fake.detach()` with no retain_graph.
import os

import torch
import torch.nn.functional as F
from torch import nn

from warmup import WarmupOptim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train(generator, discriminator, batches, steps):
    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
    sched_g = WarmupOptim(opt_g, 1e-3, warmup_steps=10)
    sched_d = WarmupOptim(opt_d, 1e-3, warmup_steps=10)
    for i in range(steps):
        real = batches[i % len(batches)]
        fake = generator(torch.randn(real.size(0), 4))
        g_loss = F.softplus(-discriminator(fake)).mean() + 0.1 * F.l1_loss(fake, real)
        sched_g.zero_grad()
        g_loss.backward(retain_graph=True)
        sched_g.step_and_update_lr()

        d_loss = F.softplus(discriminator(fake)).mean() + F.softplus(-discriminator(real)).mean()
        sched_d.zero_grad()
        d_loss.backward()
        sched_d.step_and_update_lr()
        print(f"{i} g {g_loss.item():.6f} d {d_loss.item():.6f}")


G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
train(G, D, [torch.randn(6, 8) for _ in range(3)], ITERS)
print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f}")
