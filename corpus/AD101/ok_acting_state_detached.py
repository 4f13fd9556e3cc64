# expect-before: runs
# The agent keeps the LSTM state between acting steps, but stores it detached:
# the acting loop never backwards, and no step's graph outlives the step.
# The learner replays stored observations from a fresh zero state.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Agent:
    def __init__(self, obs_dim=3, hidden=8, n_actions=3):
        self.lstm = nn.LSTM(obs_dim, hidden)
        self.q = nn.Linear(hidden, n_actions)
        self.opt = torch.optim.SGD(list(self.lstm.parameters()) + list(self.q.parameters()), lr=0.05)
        self.hidden = hidden
        self.begin_episode()

    def begin_episode(self):
        self.hc = (torch.zeros(1, 1, self.hidden), torch.zeros(1, 1, self.hidden))

    def act(self, obs):
        out, hc = self.lstm(obs.view(1, 1, -1), self.hc)
        self.hc = (hc[0].detach(), hc[1].detach())
        return int(torch.argmax(self.q(out).detach()))

    def train_on(self, observations, targets):
        out, _ = self.lstm(observations.unsqueeze(1))
        loss = (self.q(out).squeeze(1).max(1)[0] - targets).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


agent = Agent()
for episode in range(ITERS):
    agent.begin_episode()
    seen, rewards = [], []
    obs = torch.randn(3)
    for t in range(5):
        a = agent.act(obs)
        seen.append(obs)
        rewards.append(float(a == 1))
        obs = torch.randn(3)
    print(f"{episode} loss {agent.train_on(torch.stack(seen), torch.tensor(rewards)):.6f}")
