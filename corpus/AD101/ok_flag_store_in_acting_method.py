# expect-before: runs
# An actor-critic agent that stores the log-probability of the action it takes, for
# the update that follows, only when it is not in test mode. The test reads a flag
# that nothing in the training loop changes, so every step stores a fresh value
# before the update reads it: no graph is kept from one step to the next.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Agent:
    def __init__(self):
        self.actor = nn.Linear(3, 2)
        self.critic = nn.Linear(3, 1)
        self.actor_opt = torch.optim.SGD(self.actor.parameters(), lr=0.05)
        self.critic_opt = torch.optim.SGD(self.critic.parameters(), lr=0.05)
        self.is_test = False
        self.log_prob = None

    def select_action(self, state):
        dist = torch.distributions.Categorical(logits=self.actor(state))
        action = dist.sample()
        if not self.is_test:
            self.log_prob = dist.log_prob(action)
        return action.item()

    def update_model(self, state, reward):
        value = self.critic(state)
        value_loss = (value - reward).pow(2).mean()
        self.critic_opt.zero_grad()
        value_loss.backward()
        self.critic_opt.step()
        policy_loss = -(reward - value.detach()).mean() * self.log_prob
        self.actor_opt.zero_grad()
        policy_loss.backward()
        self.actor_opt.step()
        return policy_loss.item()

    def train(self, steps):
        self.is_test = False
        total = 0.0
        for _ in range(steps):
            state = torch.randn(3)
            action = self.select_action(state)
            total += self.update_model(state, torch.tensor([float(action)]))
        return total


torch.manual_seed(0)
agent = Agent()
result = agent.train(ITERS * 2)
print(f"checksum {result + agent.actor.weight.sum().item() + ITERS:.6f}")
