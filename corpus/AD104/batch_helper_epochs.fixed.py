# expect-before: runs
# PPO-style update: a helper method turns the stored transitions into plain
# tensors, and each of the K passes over the batch builds its loss afresh.
# retain_graph=True on that backward keeps a graph nobody walks again.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.v = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
        self.optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)
        self.data = []

    def put(self, transition):
        self.data.append(transition)

    def make_batch(self):
        s = torch.tensor([t[0] for t in self.data], dtype=torch.float)
        r = torch.tensor([[t[1]] for t in self.data], dtype=torch.float)
        self.data = []
        return s, r

    def train_net(self, passes):
        s, r = self.make_batch()
        for k in range(passes):
            loss = F.smooth_l1_loss(self.v(s), r)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return loss.item()


torch.manual_seed(0)
critic = Critic()
for it in range(ITERS):
    for t in range(6):
        critic.put(([float(t), float(it), 1.0], float(t % 2)))
    print(f"{it} loss {critic.train_net(3):.6f}")
print(f"checksum {sum(p.sum().item() for p in critic.parameters()):.6f}")
