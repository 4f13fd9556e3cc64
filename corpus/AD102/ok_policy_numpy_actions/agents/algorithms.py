import numpy as np
import torch

from .policies import Policy, add_noise


class Memory:
    def __init__(self, n_assets):
        self.items = [np.full(n_assets, 1.0 / n_assets, dtype=np.float32)]

    def add(self, action):
        self.items.append(action)

    def last(self):
        return self.items[-1]


class PolicyGradient:
    def __init__(self, policy=Policy, lr=0.05, n_assets=3):
        self.policy_cls = policy
        self._setup(policy, lr, n_assets)

    def _setup(self, policy, lr, n_assets):
        self.policy = policy().to("cpu")
        self.optimizer = torch.optim.SGD(self.policy.parameters(), lr=lr)
        self.memory = Memory(n_assets)
        self.batch = []

    def train(self, observations):
        for obs in observations:
            last = self.memory.last()
            action = add_noise(self.policy(obs, last), 0.01)
            self.memory.add(action)
            self.batch.append((obs, last))
            if len(self.batch) == 2:
                self._ascent()

    def _ascent(self):
        obs = torch.as_tensor(np.stack([o for o, _ in self.batch]), dtype=torch.float32)
        last = torch.as_tensor(np.stack([a for _, a in self.batch]), dtype=torch.float32)
        loss = -torch.log(self.policy.mu(obs, last)[:, 0]).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.batch = []
