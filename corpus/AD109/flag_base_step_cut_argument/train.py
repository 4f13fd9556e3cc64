# expect-before: runs
# An exploration agent (URLB-style) subclasses a DDPG agent of another file
# (agent.py), whose update_critic zeroes and steps the encoder's optimizer
# around the critic loss's backward. The subclass hands it `obs.detach()`,
# so the critic loss reaches the encoder only through a cut: the encoder
# optimizer steps with no gradient and the encoder never learns.
import os

import torch
from torch import nn

from agent import DDPGAgent

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class CuriosityAgent(DDPGAgent):
    def __init__(self):
        super().__init__()
        self.icm = nn.Linear(16, 16)
        self.icm_opt = torch.optim.Adam(self.icm.parameters(), lr=1e-2)

    def update(self, batch):
        obs, action, reward, next_obs = batch
        obs = self.aug_and_encode(obs)
        with torch.no_grad():
            next_obs = self.aug_and_encode(next_obs)
        with torch.no_grad():
            reward = reward + (self.icm(obs) - next_obs).pow(2).mean(1, keepdim=True)
        critic = self.update_critic(obs.detach(), action, reward, next_obs.detach())
        actor = self.update_actor(obs.detach())
        return critic, actor


torch.manual_seed(0)
agent = CuriosityAgent()
for it in range(ITERS):
    batch = (torch.randn(8, 8), torch.rand(8, 2) * 2 - 1, torch.randn(8, 1), torch.randn(8, 8))
    critic, actor = agent.update(batch)
    print(f"critic {critic:.6f} actor {actor:.6f}")
print(f"checksum {sum(p.sum().item() for p in agent.encoder.parameters()):.6f}")
