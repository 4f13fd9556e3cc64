# expect-before: runs
# The same loop as summed_parts_from_helper, with the logged term read as a
# number (`rec.item()`): nothing keeps a graph across iterations.
import os

import torch
from torch import nn

from losses import vae_parts

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class TinyVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 4)
        self.dec = nn.Linear(2, 8)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


def train_epoch(model, optimizer, data, beta=0.5):
    running_rec = 0.0
    for x in data:
        optimizer.zero_grad()
        rec, kl = vae_parts(model, x)
        loss = rec + beta * kl
        loss.backward()
        optimizer.step()
        running_rec += rec.item()
    return running_rec / len(data)


torch.manual_seed(0)
vae = TinyVAE()
batches = [torch.randn(4, 8) for _ in range(ITERS)]
mean_rec = train_epoch(vae, torch.optim.SGD(vae.parameters(), lr=0.01), batches)
print(f"mean rec {float(mean_rec):.6f}")
print(f"checksum {sum(p.sum().item() for p in vae.parameters()):.6f}")
