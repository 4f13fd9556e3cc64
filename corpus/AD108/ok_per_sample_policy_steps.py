# expect-before: runs
# The REINFORCE agent written correctly: one backward per stored sample,
# one optimizer step after the loop.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.data = []
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 2)
        self.optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)

    def forward(self, x):
        return torch.softmax(self.fc2(torch.relu(self.fc1(x))), dim=0)

    def put_data(self, item):
        self.data.append(item)

    def train_net(self):
        R = 0
        self.optimizer.zero_grad()
        for r, prob in self.data[::-1]:
            R = r + 0.98 * R
            loss = -torch.log(prob) * R
            loss.backward()
        self.optimizer.step()
        self.data = []


torch.manual_seed(0)
pi = Policy()
for episode in range(ITERS):
    for t in range(5):
        prob = pi(torch.randn(4))
        a = int(torch.multinomial(prob, 1))
        pi.put_data((float(a == t % 2), prob[a]))
    pi.train_net()
    print(f"episode {episode}")
print(f"checksum {sum(p.sum().item() for p in pi.parameters()):.6f}")
