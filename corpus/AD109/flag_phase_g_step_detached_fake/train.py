# expect-before: runs
# A conditional GAN trained the Lightning way: one `training_step` called
# once per optimizer (encoder, generator, discriminator), the order of
# `configure_optimizers`. In the encoder and generator phases the
# adversarial term runs the discriminator on the fake detached, so it sends
# the generator nothing: only the L1 term trains it, silently. (The encoder
# still gets the adversarial signal through the condition `f`.) That the
# phases run in this order is inferred from the optimizer_idx arms.
import os

import torch
import torch.nn.functional as F
from torch import nn

from runner import fit

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class CondGAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(6, 4)
        self.g = nn.Linear(4, 6)
        self.d = nn.Linear(10, 1)

    def training_step(self, batch, batch_idx, optimizer_idx):
        label, spec = batch
        f = self.enc(label)
        fake = self.g(f)
        if optimizer_idx == 0 or optimizer_idx == 1:
            d_fake = self.d(torch.cat((fake.detach(), f), 1))
            adv = F.mse_loss(d_fake, torch.ones_like(d_fake))
            rec = F.l1_loss(fake, spec)
            return adv + 10 * rec
        d_fake = self.d(torch.cat((fake.detach(), f.detach()), 1))
        d_real = self.d(torch.cat((spec, f.detach()), 1))
        return F.mse_loss(d_fake, torch.zeros_like(d_fake)) + F.mse_loss(d_real, torch.ones_like(d_real))

    def configure_optimizers(self):
        enc_optim = torch.optim.SGD(self.enc.parameters(), lr=0.05)
        g_optim = torch.optim.SGD(self.g.parameters(), lr=0.05)
        d_optim = torch.optim.SGD(self.d.parameters(), lr=0.05)
        return [enc_optim, g_optim, d_optim], []


torch.manual_seed(0)
model = CondGAN()
data = [(torch.randn(4, 6), torch.randn(4, 6)) for _ in range(ITERS)]
for loss in fit(model, data):
    print(f"loss {loss:.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
