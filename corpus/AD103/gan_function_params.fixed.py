# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# The GAN step lives in a function that receives the models and optimizers as
# arguments: nothing in `train` constructs them, so their roles are inferred from usage
# (called on tensors, .step()/.zero_grad()) and the optimizers are paired with
# the models by name (`opt_d`/`D`). The D step scores `fake` without detaching.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(G, D, opt_g, opt_d, loader, nz=6):
    bce = nn.BCELoss()
    for it, real in enumerate(loader):
        fake = G(torch.randn(real.size(0), nz))
        opt_d.zero_grad()
        d_loss = bce(D(real), torch.ones(real.size(0), 1)) + bce(D(fake.detach()), torch.zeros(real.size(0), 1))
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = bce(D(fake), torch.ones(real.size(0), 1))
        g_loss.backward()
        opt_g.step()
        print(f"{it} d {d_loss.item():.6f} g {g_loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 10))
    disc = nn.Sequential(nn.Linear(10, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid())
    og = torch.optim.Adam(gen.parameters(), lr=1e-3, betas=(0.5, 0.9))
    od = torch.optim.Adam(disc.parameters(), lr=1e-3, betas=(0.5, 0.9))
    batches = [torch.randn(8, 10) + 2.0 for _ in range(ITERS)]
    train(gen, disc, og, od, batches)
    print(f"checksum {sum(p.sum().item() for p in gen.parameters()):.6f}")
