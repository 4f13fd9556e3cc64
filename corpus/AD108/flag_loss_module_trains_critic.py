# expect-before: error modified by an inplace operation
# A super-resolution loss, as a list of loss modules the trainer sums: the
# adversarial one trains its own discriminator in `forward` (its optimizer
# built by a helper from the module), keeps `d_real` with retain_graph, steps,
# and returns the relativistic generator loss built from that `d_real` and a
# new forward on the output. The trainer's backward of the summed loss walks
# discriminator weights the step changed.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def make_optimizer(module, lr=1e-3):
    trainable = [p for p in module.parameters() if p.requires_grad]
    return torch.optim.Adam(trainable, lr=lr)


class RelativisticAdversarial(nn.Module):
    def __init__(self, k=1):
        super().__init__()
        self.k = k
        self.dis = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.optimizer = make_optimizer(self.dis)

    def forward(self, sr, hr):
        sr_detach = sr.detach()
        for _ in range(self.k):
            self.optimizer.zero_grad()
            d_fake = self.dis(sr_detach)
            d_real = self.dis(hr)
            loss_d = F.binary_cross_entropy_with_logits(d_real - d_fake.mean(), torch.ones_like(d_real))
            loss_d.backward(retain_graph=True)
            self.optimizer.step()
        d_sr = self.dis(sr)
        better_sr = d_sr - d_real.mean(dim=0, keepdim=True)
        return F.binary_cross_entropy_with_logits(better_sr, torch.ones_like(better_sr))


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 6))
        self.losses = nn.ModuleList([nn.L1Loss(), RelativisticAdversarial()])
        self.weights = [1.0, 0.01]
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def step(self, lr_img, hr_img):
        self.opt.zero_grad()
        sr = self.model(lr_img)
        total = sum(w * fn(sr, hr_img) for w, fn in zip(self.weights, self.losses))
        total.backward()
        self.opt.step()
        return total.item()


torch.manual_seed(0)
trainer = Trainer()
for i in range(ITERS):
    value = trainer.step(torch.randn(8, 6), torch.randn(8, 6))
    print(f"{i} loss {value:.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
