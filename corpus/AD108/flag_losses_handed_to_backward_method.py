# expect-before: error modified by an inplace operation
# A dehazing trainer registers its networks with `add_module` and builds the
# optimizers over the local names; `compute` returns the restoration loss
# (through the critic, on the undetached output) and the critic loss, and a
# training function hands both to the class's own `backward`, which steps the
# critic before the restoration loss's backward walks the critic's weights.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Restorer(nn.Module):
    def __init__(self):
        super().__init__()
        net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 6))
        critic = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.add_module("net", net)
        setattr(self, "critic", critic)
        self.net_opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(params=critic.parameters(), lr=1e-3)

    def compute(self, hazy, clear):
        self.net_opt.zero_grad()
        self.critic_opt.zero_grad()
        restored = self.net(hazy)
        critic_loss = torch.relu(1 - self.critic(clear)).mean() + torch.relu(1 + self.critic(restored.detach())).mean()
        restore_loss = (restored - clear).abs().mean() - 0.1 * self.critic(restored).mean()
        return restore_loss, critic_loss

    def backward(self, restore_loss, critic_loss):
        critic_loss.backward()
        self.critic_opt.step()
        restore_loss.backward()
        self.net_opt.step()


def train(iters):
    for i in range(iters):
        hazy, clear = torch.randn(8, 6), torch.randn(8, 6)
        r_loss, c_loss = model.compute(hazy, clear)
        model.backward(r_loss, c_loss)
        print(f"{i} restore {r_loss.item():.6f} critic {c_loss.item():.6f}")


torch.manual_seed(0)
model = Restorer()
train(ITERS)
print(f"checksum {sum(p.sum().item() for p in model.net.parameters()):.6f}")
