# expect-before: runs
# Actor and critic losses built together and stepped together by one
# optimizer after a single backward of their sum.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 32), nn.Tanh())
        self.pi = nn.Linear(32, 2)
        self.v = nn.Linear(32, 1)

    def forward(self, s):
        h = self.body(s)
        return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


torch.manual_seed(0)
net = ActorCritic()
opt = torch.optim.Adam(net.parameters(), lr=7e-4)
for it in range(ITERS):
    s = torch.randn(16, 4)
    dist, value = net(s)
    a = dist.sample()
    ret = (a == (s[:, 0] > 0).long()).float()
    adv = ret - value.detach()
    actor_loss = -(dist.log_prob(a) * adv).mean() - 0.01 * dist.entropy().mean()
    critic_loss = F.mse_loss(value, ret)
    opt.zero_grad()
    (actor_loss + 0.5 * critic_loss).backward()
    opt.step()
    print(f"{it} actor {actor_loss.item():.6f} critic {critic_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
