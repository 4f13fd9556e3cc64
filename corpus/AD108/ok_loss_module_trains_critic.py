# expect-before: runs
# flag_loss_module_trains_critic.py as a current PyTorch needs it: the
# discriminator's output on the real batch is computed again after its step,
# so the returned generator loss holds no graph the step made stale.
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
            loss_d.backward()
            self.optimizer.step()
        d_real = self.dis(hr)
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
