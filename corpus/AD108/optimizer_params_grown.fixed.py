# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# The critic's optimizer takes a list grown with `+=` from two modules. The
# generator loss goes through both and is computed before the critic's step.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

latent_dim, data_dim, batch = 8, 12, 16
generator = nn.Sequential(nn.Linear(latent_dim, 32), nn.ReLU(), nn.Linear(32, data_dim))
body = nn.Sequential(nn.Linear(data_dim, 32), nn.LeakyReLU(0.2))
head = nn.Linear(32, 1)
critic_params = []
critic_params += list(body.parameters())
critic_params += list(head.parameters())
gen_optimizer = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
critic_optimizer = torch.optim.Adam(critic_params, lr=2e-4, betas=(0.5, 0.999))

for it in range(ITERS):
    real = torch.randn(batch, data_dim) * 0.5 + 1.0
    fake = generator(torch.randn(batch, latent_dim))
    critic_loss = head(body(fake.detach())).mean() - head(body(real)).mean()
    critic_optimizer.zero_grad()
    critic_loss.backward()
    critic_optimizer.step()
    gen_optimizer.zero_grad()
    gen_loss = -head(body(fake)).mean()
    gen_loss.backward()
    gen_optimizer.step()
    print(f"{it} critic {critic_loss.item():.6f} gen {gen_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in generator.parameters()):.6f}")
