# expect-before: runs
# autodetach-test: unsafe
# A recurrent Q-network keeps its LSTM state on itself (`x, self.hc =
# self.lstm(x, self.hc)`). The agent acts with gradients on and uses the
# Q-values only as an action number, so each environment step's state hangs
# from the previous step's graph until the next `reset_state`: the episode's
# graphs stay alive, never backwarded (memory grows with the episode). The
# fix runs the acting forward under no_grad; that no later forward trains
# through the state the episode leaves is inferred, so it is unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class RecurrentQ(nn.Module):
    def __init__(self, obs_dim=4, hidden=16, n_actions=2):
        super().__init__()
        self.hidden = hidden
        self.enc = nn.Linear(obs_dim, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_actions)
        self.reset_state(1)

    def reset_state(self, batch):
        self.hc = (torch.zeros(1, batch, self.hidden), torch.zeros(1, batch, self.hidden))

    def forward(self, x):
        x = torch.relu(self.enc(x))
        x, self.hc = self.lstm(x, self.hc)
        return self.head(x)


class Agent:
    def __init__(self):
        self.net = RecurrentQ()
        self.optim = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        self.memory = []

    def act(self, obs):
        obs = obs.view(1, 1, -1)
        with torch.no_grad():
            q = self.net(obs)
        return q.argmax(dim=2).item()

    def learn(self):
        seqs = torch.stack([s for s, _ in self.memory])
        actions = torch.tensor([a for _, a in self.memory]).view(1, -1, 1)
        self.net.reset_state(1)
        q = self.net(seqs.unsqueeze(0)).gather(2, actions)
        loss = (q - 1.0).pow(2).mean()
        self.optim.zero_grad()
        loss.backward()
        self.optim.step()
        return loss.item()


agent = Agent()
for episode in range(ITERS):
    agent.net.reset_state(1)
    agent.memory = []
    obs = torch.randn(4)
    for t in range(6):
        action = agent.act(obs)
        agent.memory.append((obs, action))
        obs = torch.randn(4) + 0.1 * action
    print(f"{episode} loss {agent.learn():.6f}")
