# expect-before: runs
# `lengths_d = disc.features_lengths(lengths)` is a dict of integer tensors:
# `Discriminator.features_lengths` (nets.py) hands the work to its blocks'
# method of the same name, which never reads the block's weights. Both losses
# read it, and the first backward frees no graph of it, so there is nothing to
# detach (and `.detach()` of a dict would raise).
import os

import torch

from nets import Discriminator, Generator

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def masked_mean(feats, lengths):
    total = 0
    for key, f in feats.items():
        n = int(lengths[key][1].min())
        total = total + f[..., :n].mean()
    return total


def train(gen, disc, opt_g, opt_d, batches):
    for i, (x, lengths) in enumerate(batches):
        fake = gen(x)
        lengths_d = disc.features_lengths(lengths)
        loss_g = -masked_mean(disc(fake), lengths_d) + (fake - x).abs().mean()
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        loss_d = masked_mean(disc(fake.detach()), lengths_d) - masked_mean(disc(x), lengths_d)
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        print(f"{i} g {loss_g.item():.6f} d {loss_d.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    gen, disc = Generator(), Discriminator()
    opt_g = torch.optim.SGD(gen.parameters(), lr=0.05)
    opt_d = torch.optim.SGD(disc.parameters(), lr=0.05)
    batches = [(torch.randn(2, 1, 16), torch.tensor([16, 12])) for _ in range(ITERS)]
    train(gen, disc, opt_g, opt_d, batches)
    print(f"checksum {sum(p.sum().item() for p in gen.parameters()):.6f}")
