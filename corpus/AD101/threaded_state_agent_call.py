# expect-before: runs
# autodetach-test: unsafe
# A recurrent Q agent: `act` runs its LSTM network on the observation and the
# state it is handed, and returns the greedy action (a number) with the new
# state, which the episode loop feeds back into the next `act`. Gradients are
# on and the loop never backwards, so each step's state carries the graph of
# every earlier step of the episode. The learner replays whole episodes from
# a zero state. The fix runs the acting call under no_grad; that nothing
# trains through the state the episode leaves is inferred, so it is unsafe.
import os
import random

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
random.seed(0)


class RecurrentQ(nn.Module):
    def __init__(self, obs_dim=3, hidden=8, n_actions=3):
        super().__init__()
        self.lstm = nn.LSTM(obs_dim, hidden)
        self.q = nn.Linear(hidden, n_actions)

    def forward(self, obs, hc):
        out, hc = self.lstm(obs, hc)
        return self.q(out), hc


class Agent:
    def __init__(self, epsilon=0.2):
        self.net = RecurrentQ()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.05)
        self.epsilon = epsilon

    def act(self, obs, hc):
        q, new_hc = self.net(obs.view(1, 1, -1), hc)
        if random.random() < self.epsilon:
            action = random.randrange(3)
        else:
            action = q[0, 0].argmax().item()
        return action, new_hc

    def learn(self, observations, rewards):
        zeros = (torch.zeros(1, 1, 8), torch.zeros(1, 1, 8))
        q, _ = self.net(observations.unsqueeze(1), zeros)
        loss = (q.squeeze(1).max(1)[0] - rewards).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


agent = Agent()
for episode in range(ITERS):
    hc = (torch.zeros(1, 1, 8), torch.zeros(1, 1, 8))
    seen, rewards = [], []
    obs = torch.randn(3)
    for t in range(6):
        action, hc = agent.act(obs, hc)
        seen.append(obs)
        rewards.append(float(action == 1))
        obs = torch.randn(3)
    print(f"{episode} loss {agent.learn(torch.stack(seen), torch.tensor(rewards)):.6f}")
