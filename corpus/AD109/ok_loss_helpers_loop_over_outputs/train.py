# expect-before: runs
# The discriminator step runs `net_d(y, y_hat.detach())` and its loss comes from
# a sibling module's helper that loops over the lists of outputs (`for dr, dg in
# zip(...)`, `dr = dr.float()`) and keeps `.item()` logs: the loss the helper
# returns first still hangs from net_d's outputs, so `optim_d.step()` is not
# starved by the cut (VITS, HiFi-GAN).
import os

import torch
import torch.nn as nn

from losses import discriminator_loss, feature_loss, generator_loss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class MultiDisc(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(4, 1) for _ in range(2)])

    def forward(self, y, y_hat):
        real = [h(y) for h in self.heads]
        fake = [h(y_hat) for h in self.heads]
        return real, fake, [[y]], [[y_hat]]


def train_epoch(nets, optims):
    net_g, net_d = nets
    optim_g, optim_d = optims
    for it in range(ITERS):
        x, y = torch.randn(3, 4), torch.randn(3, 4)
        y_hat = net_g(x)
        y_d_hat_r, y_d_hat_g, _, _ = net_d(y, y_hat.detach())
        loss_disc, losses_r, losses_g = discriminator_loss(y_d_hat_r, y_d_hat_g)
        optim_d.zero_grad()
        loss_disc.backward()
        optim_d.step()

        y_d_hat_r, y_d_hat_g, fmap_r, fmap_g = net_d(y, y_hat)
        loss_gen, _ = generator_loss(y_d_hat_g)
        loss_gen_all = loss_gen + feature_loss(fmap_r, fmap_g)
        optim_g.zero_grad()
        loss_gen_all.backward()
        optim_g.step()
        print(f"{it} {loss_disc.item():.6f} {loss_gen_all.item():.6f} {sum(losses_r):.6f}")


net_g, net_d = nn.Linear(4, 4), MultiDisc()
optim_g = torch.optim.SGD(net_g.parameters(), lr=0.1)
optim_d = torch.optim.SGD(net_d.parameters(), lr=0.1)
train_epoch([net_g, net_d], [optim_g, optim_d])
print(f"{sum(p.sum().item() for p in net_d.parameters()):.6f}")
