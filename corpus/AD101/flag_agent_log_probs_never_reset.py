# expect-before: error Trying to backward through the graph a second time
# A REINFORCE agent class: `act` (no backward of its own) appends each step's
# log-probability to `self.log_probs`, `learn` backwards their sum and resets
# the rewards but not the log-probabilities. The second episode's loss reads
# the first episode's entries, whose graph the first backward freed. Reported
# without a fix: detaching where they are stored would cut this episode's own
# loss (`self.log_probs = []` in `learn` was meant).
import os

import torch
import torch.nn as nn
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Agent:
    def __init__(self):
        self.net = nn.Linear(4, 2)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=1e-2)
        self.log_probs = []
        self.rewards = []

    def act(self, state):
        m = Categorical(torch.softmax(self.net(state), -1))
        a = m.sample()
        self.log_probs.append(m.log_prob(a))
        return a.item()

    def learn(self):
        returns = torch.tensor(self.rewards)
        loss = sum(-lp * r for lp, r in zip(self.log_probs, returns))
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.rewards = []
        return loss.item()


agent = Agent()
for ep in range(ITERS):
    for t in range(5):
        agent.act(torch.randn(4))
        agent.rewards.append(1.0)
    print(f"episode {ep} loss {agent.learn():.6f}")
print(f"checksum {agent.net.weight.sum().item():.6f}")
