# expect-before: runs
# A GAN wrapper from a library whose name starts with "torch" but is not torch
# (`torchgraph`, as torch_geometric, torchvision): `model = Critic(generator,
# critic)` only builds an object of the two modules, it runs neither, so it
# holds no graph that a critic step could make stale. The critic is stepped on
# `critic_loss(fake, real)`, which detaches `fake`; the generator loss is a new
# critic forward after those steps, backwarded once.
import os

import torch
import torch.nn as nn

from torchgraph.models import Critic

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

generator = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 4))
critic = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
model = Critic(generator, critic)
g_opt = torch.optim.Adam(generator.parameters(), lr=0.005)
c_opt = torch.optim.Adam(critic.parameters(), lr=0.001)
real = torch.randn(16, 4)

for step in range(ITERS):
    g_opt.zero_grad()
    fake = model.sample(torch.randn(16, 3))
    for _ in range(2):
        c_opt.zero_grad()
        c_loss = model.critic_loss(fake, real)
        c_loss.backward()
        c_opt.step()
    g_loss = model.generator_loss(fake)
    g_loss.backward()
    g_opt.step()
    print(f"critic {c_loss.item():.6f} generator {g_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
