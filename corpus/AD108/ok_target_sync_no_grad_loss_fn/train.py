# expect-before: runs
# The shape of ok_target_sync_no_grad_helper with the loss helper in a
# sibling file and the networks on `self`, as a Lightning DQN's
# training_step does: the target is synced between the loss and its
# backward, but the helper ran it under torch.no_grad().
import copy
import os

import torch
from torch import nn

from losses import dqn_loss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Agent:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        self.target_net = copy.deepcopy(self.net)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.05)
        self.sync_rate = 2

    def training_step(self, batch, step):
        loss = dqn_loss(batch, self.net, self.target_net)
        if step % self.sync_rate == 0:
            self.target_net.load_state_dict(self.net.state_dict())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss


agent = Agent()
for step in range(ITERS * 2):
    batch = (torch.randn(8, 4), torch.randint(0, 2, (8,)), torch.randn(8), torch.randn(8, 4))
    loss = agent.training_step(batch, step)
    print(f"{step} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in agent.net.parameters()):.6f}")
