# expect-before: error modified by an inplace operation
# A GAN model class in the DRIT/MSGAN shape: `forward()` runs the encoder and
# the generator and keeps the fakes on `self`; the training script calls
# `update_D()` (which calls `forward()` and steps the discriminator on detached
# fakes), then `update_EG()`. That backwards the first generator loss with
# retain_graph=True and steps the encoder and generator optimizers, then calls
# `backward_G_alone()`, whose mode-seeking loss is built from the fakes kept by
# `forward()` before those steps: it walks generator weights the step changed.
# `update_EG` never calls `forward()`, so the order is read from the state it
# reads; the fix (forward again, or backward both losses before the steps) is
# for a human.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Model:
    def __init__(self):
        self.enc = nn.Linear(6, 4)
        self.gen = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 6))
        self.dis = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
        self.enc_opt = torch.optim.Adam(self.enc.parameters(), lr=0.01)
        self.gen_opt = torch.optim.Adam(self.gen.parameters(), lr=0.01)
        self.dis_opt = torch.optim.Adam(self.dis.parameters(), lr=0.01)

    def forward(self):
        self.z_content = self.enc(self.input)
        self.z_random = torch.randn(self.input.size(0), 4)
        self.z_random2 = torch.randn(self.input.size(0), 4)
        self.fake_encoded = self.gen(torch.cat([self.z_content, self.z_content], 1))
        self.fake_random = self.gen(torch.cat([self.z_content, self.z_random], 1))
        self.fake_random2 = self.gen(torch.cat([self.z_content, self.z_random2], 1))

    def update_D(self, x):
        self.input = x
        self.forward()
        self.dis_opt.zero_grad()
        real = self.dis(self.input).mean()
        fake = self.dis(self.fake_encoded.detach()).mean()
        loss_d = fake - real
        loss_d.backward()
        self.dis_opt.step()
        return loss_d.item()

    def update_EG(self):
        self.enc_opt.zero_grad()
        self.gen_opt.zero_grad()
        loss_g = self.backward_EG()
        self.enc_opt.step()
        self.gen_opt.step()
        self.gen_opt.zero_grad()
        loss_ms = self.backward_G_alone()
        self.gen_opt.step()
        return loss_g, loss_ms

    def backward_EG(self):
        loss_g = -self.dis(self.fake_encoded).mean() + (self.fake_encoded - self.input).abs().mean()
        loss_g.backward(retain_graph=True)
        return loss_g.item()

    def backward_G_alone(self):
        lz = torch.mean(torch.abs(self.fake_random2 - self.fake_random)) / \
            torch.mean(torch.abs(self.z_random2 - self.z_random))
        loss = 1 / (lz + 1e-5) - self.dis(self.fake_random).mean()
        loss.backward()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model()
    for step in range(ITERS):
        x = torch.randn(8, 6)
        d = model.update_D(x)
        g, ms = model.update_EG()
        print(step, f"{d:.6f} {g:.6f} {ms:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.gen.parameters()):.6f}")
