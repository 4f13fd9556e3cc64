# expect-before: runs
# An observation normaliser without parameters of its own, applied to the raw
# inputs: its running statistics are updated in place from data that carries
# no graph, so the buffers keep no history.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class InputNormalizer(nn.Module):
    def __init__(self, features, momentum=0.05):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(features))
        self.register_buffer("var", torch.ones(features))

    def forward(self, obs):
        if self.training:
            self.mean.lerp_(obs.mean(0), self.momentum)
            self.var.lerp_(obs.var(0), self.momentum)
        return (obs - self.mean) / torch.sqrt(self.var + 1e-5)


class Trainer:
    def __init__(self, features):
        self.norm = InputNormalizer(features)
        self.net = nn.Sequential(nn.Linear(features, 16), nn.Tanh(), nn.Linear(16, 1))
        self.opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)

    def step(self, obs, target):
        loss = F.mse_loss(self.net(self.norm(obs)), target)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


trainer = Trainer(6)
for it in range(ITERS):
    print(f"{it} loss {trainer.step(torch.randn(64, 6) * 3 + 1, torch.randn(64, 1)):.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.net.parameters()):.6f}")
