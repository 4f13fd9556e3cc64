import torch
import torch.nn as nn


class Actor(nn.Module):
    def __init__(self, obs_dim, hidden, act_dim):
        super().__init__()
        self.cell = nn.GRUCell(obs_dim, hidden)
        self.head = nn.Linear(hidden, act_dim)

    def forward(self, obs, h):
        h = self.cell(obs, h)
        return torch.tanh(self.head(h)), h


class Policy:
    def __init__(self, obs_dim=3, hidden=8, act_dim=2):
        self.actor = Actor(obs_dim, hidden, act_dim)
        self.opt = torch.optim.SGD(self.actor.parameters(), lr=0.05)
        self.hidden = hidden

    def initial(self):
        return torch.zeros(1, self.hidden)

    def select_action(self, obs, h):
        obs = torch.as_tensor(obs, dtype=torch.float32).view(1, -1)
        action, h = self.actor(obs, h)
        return action.cpu().data.numpy().flatten(), h

    def train(self, buffer):
        obs, h = buffer.sample()
        action, _ = self.actor(obs, h)
        loss = action.pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


class Buffer:
    def __init__(self):
        self.obs, self.h = [], []

    def add(self, obs, h):
        self.obs.append(torch.as_tensor(obs, dtype=torch.float32))
        self.h.append(h.detach().squeeze(0))

    def sample(self):
        return torch.stack(self.obs[-4:]), torch.stack(self.h[-4:])
