# expect-before: runs
# autodetach-test: unsafe
# The agent keeps the GRU state itself (`q, self.h = self.rnn(obs, self.h)` in
# `act`) and acts with gradients on: the returned action is a number, the
# loop never backwards, so each step's state hangs from the previous step's
# graph and the whole episode's graphs stay alive until `begin_episode`. The
# learner replays stored observations from a fresh zero state. The fix runs
# the acting forward under no_grad; that nothing trains through the state
# the episode leaves is inferred, so it is unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Agent:
    def __init__(self, obs_dim=3, hidden=8, n_actions=3):
        self.rnn = nn.GRU(obs_dim, hidden)
        self.q = nn.Linear(hidden, n_actions)
        self.opt = torch.optim.SGD(list(self.rnn.parameters()) + list(self.q.parameters()), lr=0.05)
        self.hidden = hidden
        self.begin_episode()

    def begin_episode(self):
        self.h = torch.zeros(1, 1, self.hidden)

    def act(self, obs):
        with torch.no_grad():
            out, self.h = self.rnn(obs.view(1, 1, -1), self.h)
        return int(torch.argmax(self.q(out).detach()))

    def train_on(self, observations, targets):
        out, _ = self.rnn(observations.unsqueeze(1), torch.zeros(1, 1, self.hidden))
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
