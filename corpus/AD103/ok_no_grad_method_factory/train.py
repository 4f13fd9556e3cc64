# expect-before: runs
# `masks` comes from `nets.fan.heatmap`, which every project class that
# defines `heatmap` (landmarks.py) decorates
# `@torch.no_grad()`: it carries no graph, so the second backward does not
# walk a freed one (stargan-v2's `nets.fan.get_heatmap(x)`).
import os

import torch

from landmarks import build_nets

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

nets = build_nets()
opt_g = torch.optim.SGD(nets.generator.parameters(), lr=0.05)
opt_fan = torch.optim.SGD(nets.fan.parameters(), lr=0.0)  # fine-tuned in a later stage
opt_d = torch.optim.SGD(nets.discriminator.parameters(), lr=0.05)

for it in range(ITERS):
    x = torch.randn(8, 6)
    masks = nets.fan.heatmap(x)
    d_loss = nets.discriminator(x * masks).pow(2).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = nets.discriminator(nets.generator(x) * masks).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    print(f"{it} d {d_loss.item():.6f} g {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in nets.generator.parameters()):.6f}")
