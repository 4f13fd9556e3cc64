# expect-before: runs
# An observation normaliser without parameters, held by the policy network as
# a part and applied first, to the raw observations: its running statistics
# are updated in place from data that carries no graph (the part is fed only
# the network's input, never a value from its parameters).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class RunningNorm(nn.Module):
    def __init__(self, features, momentum=0.05):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(features))
        self.register_buffer("var", torch.ones(features))

    def forward(self, obs):
        if self.training:
            self.mean[:] = self.mean * (1 - self.momentum) + obs.mean(0) * self.momentum
            self.var[:] = self.var * (1 - self.momentum) + obs.var(0) * self.momentum
        return (obs - self.mean) / torch.sqrt(self.var + 1e-5)


class Policy(nn.Module):
    def __init__(self, features, actions):
        super().__init__()
        self.norm = RunningNorm(features)
        self.body = nn.Sequential(nn.Linear(features, 32), nn.Tanh(), nn.Linear(32, actions))

    def forward(self, obs):
        return self.body(self.norm(obs))


def update(policy, optimizer, obs, target):
    loss = F.mse_loss(policy(obs), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


policy = Policy(6, 2)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
for it in range(ITERS):
    print(f"{it} loss {update(policy, optimizer, torch.randn(64, 6) * 3 + 1, torch.randn(64, 2)):.6f}")
print(f"checksum {sum(p.sum().item() for p in policy.parameters()):.6f}")
