# expect-before: runs
# A target network made with copy.deepcopy: the TD loss reads the online
# network live and the copy's values under no_grad, so the optimizer over the
# online network gets its gradient. Nothing to report.
import copy
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Agent:
    def __init__(self):
        self.q = nn.Linear(4, 2)
        self.target = copy.deepcopy(self.q)
        self.opt = torch.optim.SGD(self.q.parameters(), lr=0.1)

    def learn(self, obs, nxt, rew):
        with torch.no_grad():
            goal = rew + 0.9 * self.target(nxt).max(1)[0]
        loss = (self.q(obs).max(1)[0] - goal).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


agent = Agent()
for it in range(ITERS):
    value = agent.learn(torch.randn(8, 4), torch.randn(8, 4), torch.randn(8))
print(f"{value.item():.6f}")
