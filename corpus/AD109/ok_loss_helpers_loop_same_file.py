# expect-before: runs
# As ok_loss_helpers_loop_over_outputs, with the loss helpers in this file and
# the steps through a GradScaler (`scaler.scale(loss).backward()`,
# `scaler.step(optim_d)`): the helpers' loops over the output lists pass the
# outputs' graph, so neither step is starved by `y_hat.detach()`.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def discriminator_loss(real_outputs, fake_outputs):
    loss = 0
    r_losses = []
    g_losses = []
    for dr, dg in zip(real_outputs, fake_outputs):
        dr = dr.float()
        dg = dg.float()
        r_loss = torch.mean((1 - dr) ** 2)
        g_loss = torch.mean(dg ** 2)
        loss += r_loss + g_loss
        r_losses.append(r_loss.item())
        g_losses.append(g_loss.item())
    return loss, r_losses, g_losses


def generator_loss(outputs):
    loss = 0
    parts = []
    for dg in outputs:
        dg = dg.float()
        part = torch.mean((1 - dg) ** 2)
        parts.append(part)
        loss += part
    return loss, parts


def feature_loss(fmap_r, fmap_g):
    loss = 0
    for dr, dg in zip(fmap_r, fmap_g):
        for rl, gl in zip(dr, dg):
            rl = rl.float().detach()
            gl = gl.float()
            loss += torch.mean(torch.abs(rl - gl))
    return loss * 2


class MultiDisc(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(4, 1) for _ in range(2)])

    def forward(self, y, y_hat):
        real = [h(y) for h in self.heads]
        fake = [h(y_hat) for h in self.heads]
        return real, fake, [[y]], [[y_hat]]


def train_epoch(nets, optims, scaler):
    net_g, net_d = nets
    optim_g, optim_d = optims
    for it in range(ITERS):
        x, y = torch.randn(3, 4), torch.randn(3, 4)
        y_hat = net_g(x)
        y_d_hat_r, y_d_hat_g, _, _ = net_d(y, y_hat.detach())
        loss_disc, losses_r, losses_g = discriminator_loss(y_d_hat_r, y_d_hat_g)
        optim_d.zero_grad()
        loss_disc_all = loss_disc
        scaler.scale(loss_disc_all).backward()
        scaler.step(optim_d)

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
train_epoch([net_g, net_d], [optim_g, optim_d], torch.amp.GradScaler("cpu", enabled=False))
print(f"{sum(p.sum().item() for p in net_d.parameters()):.6f}")
