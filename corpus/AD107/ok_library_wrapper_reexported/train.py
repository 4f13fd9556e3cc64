# expect-before: runs
# A graph library's example (torch_geometric's ARGVA, read inside the library's
# own checkout): `model` wraps the encoder and the discriminator, imported from
# the package through a star re-export (`graphs/__init__.py`: `from .models import *`),
# and its loss methods are inherited from base classes there. `z` is encoded
# once; the discriminator is stepped several times on `discriminator_loss(z)`,
# which detaches `z` itself, and only then is the encoder loss, through a new
# discriminator forward (`reg_loss(z)`), backwarded once: no graph is reused.
import os

import torch
import torch.nn as nn

from graphs import AdversarialAutoEncoder

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 4))
discriminator = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
model = AdversarialAutoEncoder(encoder, discriminator)
encoder_optimizer = torch.optim.Adam(encoder.parameters(), lr=0.005)
discriminator_optimizer = torch.optim.Adam(discriminator.parameters(), lr=0.001)
x = torch.randn(16, 6)


def train():
    model.train()
    encoder_optimizer.zero_grad()
    z = model.encode(x)
    for _ in range(3):
        discriminator_optimizer.zero_grad()
        discriminator_loss = model.discriminator_loss(z)
        discriminator_loss.backward()
        discriminator_optimizer.step()
    loss = model.recon_loss(z, x)
    loss = loss + model.reg_loss(z)
    loss = loss + model.kl_loss(z)
    loss.backward()
    encoder_optimizer.step()
    return float(loss.detach())


for epoch in range(ITERS):
    print(f"loss {train():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
