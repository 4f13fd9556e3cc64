"""The policy and the replay buffer of train.py."""
import torch
import torch.nn as nn
from torch.distributions import Bernoulli


class Critic(nn.Module):
    def __init__(self, n_in, n_options):
        super().__init__()
        self.features = nn.Linear(n_in, 16)
        self.q = nn.Linear(16, n_options)
        self.terminations = nn.Linear(16, n_options)

    def get_state(self, obs):
        return torch.relu(self.features(obs))

    def greedy_option(self, state):
        return self.q(state).argmax(dim=-1).item()

    def predict_option_termination(self, state, option):
        termination = self.terminations(state)[:, option].sigmoid()
        stop = Bernoulli(termination).sample()
        return bool(stop.item()), self.q(state).argmax(dim=-1).item()


class ReplayBuffer:
    def __init__(self):
        self.buffer = []

    def push(self, obs, option, reward):
        self.buffer.append((obs, option, reward))

    def __len__(self):
        return len(self.buffer)
