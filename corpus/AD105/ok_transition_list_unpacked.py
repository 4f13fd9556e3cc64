# expect-before: runs
# An actor-critic agent keeps each step's transition in a list on self: the action's
# state and log-probability when it acts, the reward and next observation appended
# by the environment step, then unpacked by the update. The critic's loss reads the
# state only (a fresh tensor), so its backward frees nothing the actor's loss needs.
import os

import torch
import torch.nn as nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Agent:
    def __init__(self):
        self.actor = nn.Linear(3, 2)
        self.critic = nn.Linear(3, 1)
        self.actor_opt = torch.optim.SGD(self.actor.parameters(), lr=0.1)
        self.critic_opt = torch.optim.SGD(self.critic.parameters(), lr=0.1)
        self.transition = []

    def act(self, obs):
        state = torch.tensor(obs, dtype=torch.float32)
        dist = torch.distributions.Categorical(logits=self.actor(state))
        action = dist.sample()
        self.transition = [state, dist.log_prob(action)]
        return action.item()

    def env_step(self, action):
        next_obs = [0.1 * action, 0.2, -0.3]
        self.transition.extend([next_obs, float(action)])
        return next_obs

    def update(self):
        state, log_prob, next_obs, reward = self.transition
        value = self.critic(state)
        target = reward + 0.9 * self.critic(torch.tensor(next_obs, dtype=torch.float32))
        value_loss = (value - target.detach()).pow(2).mean()
        self.critic_opt.zero_grad()
        value_loss.backward()
        self.critic_opt.step()
        advantage = (target - value).detach()
        policy_loss = -(advantage * log_prob).mean()
        self.actor_opt.zero_grad()
        policy_loss.backward()
        self.actor_opt.step()
        return policy_loss.item() + value_loss.item()

    def train(self, steps):
        obs, total = [0.5, -0.5, 0.25], 0.0
        for _ in range(steps):
            obs = self.env_step(self.act(obs))
            total += self.update()
        return total


print(f"{Agent().train(ITERS):.6f}")
