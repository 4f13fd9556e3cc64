import torch
import torch.nn as nn


class LogScale(nn.Module):
    """A learned scalar (an entropy temperature): forward hands back the parameter itself."""

    def __init__(self, value):
        super().__init__()
        self.value = nn.Parameter(torch.tensor(float(value)))

    def forward(self):
        return self.value


class Policy(nn.Module):
    def __init__(self, obs=4, act=2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, 32), nn.ReLU(), nn.Linear(32, 2 * act))

    def forward(self, obs):
        mean, log_std = self.body(obs).chunk(2, dim=-1)
        std = log_std.clamp(-5, 2).exp()
        action = torch.tanh(mean + std * torch.randn_like(mean))
        log_pi = (-0.5 * ((action - mean) / std) ** 2 - std.log()).sum(-1)
        return action, log_pi


class Critic(nn.Module):
    def __init__(self, obs=4, act=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs + act, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, obs, act):
        return self.net(torch.cat([obs, act], -1)).squeeze(-1)
