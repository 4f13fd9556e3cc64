# expect-before: error Trying to backward through the graph a second time
# `d_loss` in losses.py detaches the fake images but not the conditioning `mu`:
# the D backward frees the graph of `mu` that the G backward (KL term and
# g_loss) needs. The gradients it puts into G are zeroed before G steps, so
# `mu.detach()` at the call is the fix.
import os

import torch
import torch.nn as nn

from losses import d_loss, g_loss, kl_loss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.cond = nn.Linear(6, 8)
        self.body = nn.Sequential(nn.Linear(4 + 4, 16), nn.Tanh())

    def forward(self, text, noise):
        h = self.cond(text)
        mu, logvar = h[:, :4], h[:, 4:]
        c = mu + torch.randn_like(mu) * logvar.mul(0.5).exp()
        return self.body(torch.cat([c, noise], 1)), mu, logvar


class Trainer:
    def __init__(self, net_g, net_d):
        self.net_g, self.net_d = net_g, net_d
        self.opt_g = torch.optim.Adam(net_g.parameters(), lr=1e-3)
        self.opt_d = torch.optim.Adam(net_d.parameters(), lr=1e-3)

    def train(self, batches):
        ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)
        for real, text in batches:
            noise = torch.randn(8, 4)
            fake, mu, logvar = self.net_g(text, noise)

            self.net_d.zero_grad()
            err_d, err_real, err_wrong, err_fake = d_loss(self.net_d, real, fake, mu.detach(), ones, zeros)
            err_d.backward()
            self.opt_d.step()

            self.net_g.zero_grad()
            err_g = g_loss(self.net_d, fake, ones, mu) + kl_loss(mu, logvar) * 2.0
            err_g.backward()
            self.opt_g.step()
            print(f"{err_d.item():.6f} {err_real:.6f} {err_wrong:.6f} {err_fake:.6f} {err_g.item():.6f}")


net_d = nn.Sequential(nn.Linear(16 + 4, 1), nn.Sigmoid())
batches = [(torch.rand(8, 16) * 2 - 1, torch.randn(8, 6)) for _ in range(ITERS)]
Trainer(Generator(), net_d).train(batches)
print(f"{sum(p.sum().item() for p in net_d.parameters()):.6f}")
