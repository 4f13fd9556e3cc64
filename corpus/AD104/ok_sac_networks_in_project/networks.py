import torch
import torch.nn as nn
from torch.distributions import Normal


class ActorNetwork(nn.Module):
    def __init__(self, dims, n_actions, lr):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dims, 16), nn.ReLU())
        self.mu = nn.Linear(16, n_actions)
        self.sigma = nn.Linear(16, n_actions)
        self.optimizer = torch.optim.Adam(self.parameters(), lr=lr)

    def forward(self, state):
        h = self.body(state)
        return self.mu(h), self.sigma(h).clamp(-5, 2).exp()

    def sample_normal(self, state):
        mu, sigma = self.forward(state)
        dist = Normal(mu, sigma)
        actions = dist.rsample()
        action = torch.tanh(actions)
        log_probs = dist.log_prob(actions) - torch.log(1 - action.pow(2) + 1e-6)
        return action, log_probs.sum(1)


class CriticNetwork(nn.Module):
    def __init__(self, dims, n_actions, lr):
        super().__init__()
        self.q = nn.Sequential(nn.Linear(dims + n_actions, 16), nn.ReLU(), nn.Linear(16, 1))
        self.optimizer = torch.optim.Adam(self.parameters(), lr=lr)

    def forward(self, state, action):
        return self.q(torch.cat([state, action], dim=1))
