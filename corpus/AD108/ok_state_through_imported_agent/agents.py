# The agent of ok_state_through_imported_agent/train.py (not a case itself).
import torch
from torch import nn
from torch.distributions import Categorical


class OptionAgent(nn.Module):
    def __init__(self, n_obs=4, n_actions=2):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(n_obs, 16), nn.Tanh(), nn.Linear(16, 8))
        self.policy_w = nn.Parameter(torch.randn(8, n_actions) * 0.1)

    def get_state(self, obs):
        return self.features(obs)

    def get_action(self, state):
        dist = Categorical((state.detach() @ self.policy_w).softmax(dim=-1))
        action = dist.sample()
        return action.item(), dist.log_prob(action), dist.entropy()
