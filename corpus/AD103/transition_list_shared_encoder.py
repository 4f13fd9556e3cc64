# expect-before: error Trying to backward through the graph a second time
# An actor-critic agent keeps `[obs, log_prob]` on itself when it acts (only outside
# evaluation mode), appends the environment's answer, and unpacks the list in its update.
# The observation is an encoder's output, which both the critic's loss and the actor's
# `log_prob` hang from: the critic's backward frees the encoder's graph that the policy
# loss needs again. Both gradients are meant: retain the graph in the first backward.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.mu = nn.Linear(3, 1)

    def forward(self, obs):
        dist = torch.distributions.Normal(self.mu(obs), 0.5)
        return dist.sample(), dist


class Agent:
    def __init__(self):
        self.policy = Policy()
        self.value = nn.Linear(3, 1)
        self.encoder = nn.Linear(3, 3)
        self.policy_opt = torch.optim.SGD([*self.policy.parameters(), *self.encoder.parameters()], lr=0.05)
        self.value_opt = torch.optim.SGD(self.value.parameters(), lr=0.05)
        self.memory = []
        self.evaluating = False

    def act(self, obs):
        obs = torch.tanh(self.encoder(torch.tensor(obs, dtype=torch.float32)))
        action, dist = self.policy(obs)
        if not self.evaluating:
            log_prob = dist.log_prob(action).sum()
            self.memory = [obs, log_prob]
        return action.numpy()

    def observe(self, next_obs, reward, done):
        if not self.evaluating:
            self.memory.extend([next_obs, reward, done])

    def learn(self):
        obs, log_prob, next_obs, reward, done = self.memory
        keep = 1.0 - float(done)
        next_obs = torch.tanh(self.encoder(torch.tensor(next_obs, dtype=torch.float32)))
        estimate = self.value(obs)
        target = reward + 0.9 * self.value(next_obs) * keep
        value_loss = F.mse_loss(estimate, target.detach())
        self.value_opt.zero_grad()
        value_loss.backward()
        self.value_opt.step()
        advantage = (target - estimate).detach()
        policy_loss = -(advantage * log_prob).sum()
        self.policy_opt.zero_grad()
        policy_loss.backward()
        self.policy_opt.step()
        return value_loss.item() + policy_loss.item()

    def train(self, steps):
        self.evaluating = False
        total = 0.0
        obs =  torch.randn(3).tolist()
        for step in range(steps):
            self.act(obs)
            obs = torch.randn(3).tolist()
            self.observe(obs, float(step % 3), step % 5 == 4)
            total += self.learn()
        return total


agent = Agent()
print(f"total {agent.train(ITERS):.6f}")
agent.train(ITERS)
print(f"checksum {sum(p.sum().item() for p in agent.policy.parameters()):.6f}")
