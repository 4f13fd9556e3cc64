# expect-before: grows
# The nearest shape that does leak: the REINFORCE agent of
# ok_reinforce_lists_cleared_in_reset also keeps each step's policy entropy on
# `self` for its log, in a list no reset empties and no loss reads. The
# episode's backward frees the log-probabilities' graphs, not the entropies':
# every step's entropy graph (and the activations it saved) stays alive for
# the whole run.
import os

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Corridor:
    def __init__(self, length=5):
        self.length = length
        self.rng = np.random.RandomState(0)

    def reset(self):
        self.t = 0
        return self.rng.randn(4)

    def act(self, action):
        self.t += 1
        return self.rng.randn(4), float(action), self.t >= self.length


class REINFORCE:
    def __init__(self):
        self.policy = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2), nn.Softmax(dim=1))
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=1e-2)
        self.environment = Corridor()
        self.episode_rewards = []
        self.episode_log_probs = []
        self.episode_number = 0
        self.entropy_log = []

    def reset_game(self):
        self.state = self.environment.reset()
        self.done = False
        self.episode_rewards = []
        self.episode_log_probs = []

    def run_n_episodes(self, num_episodes):
        while self.episode_number < num_episodes:
            self.reset_game()
            self.step()

    def step(self):
        while not self.done:
            action, log_prob = self.pick_action()
            self.store_log_prob(log_prob)
            self.state, reward, self.done = self.environment.act(action)
            self.episode_rewards.append(reward)
            if self.time_to_learn():
                self.actor_learn()
        self.episode_number += 1

    def pick_action(self):
        state = torch.from_numpy(self.state).float().unsqueeze(0)
        dist = Categorical(self.policy(state))
        action = dist.sample()
        self.entropy_log.append(dist.entropy())
        return action.item(), dist.log_prob(action)

    def store_log_prob(self, log_prob):
        self.episode_log_probs.append(log_prob)

    def time_to_learn(self):
        return self.done

    def discounted_return(self):
        discounts = 0.99 ** np.arange(len(self.episode_rewards))
        return float(np.dot(discounts, self.episode_rewards))

    def policy_loss_on_episode(self, total_return):
        policy_loss = []
        for log_prob in self.episode_log_probs:
            policy_loss.append(-log_prob * total_return)
        return torch.cat(policy_loss).sum()

    def actor_learn(self):
        loss = self.policy_loss_on_episode(self.discounted_return())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        entropy = torch.cat(self.entropy_log[-len(self.episode_rewards):]).mean().item()
        print(self.episode_number, f"{loss.item():.6f} entropy {entropy:.6f}")


agent = REINFORCE()
agent.run_n_episodes(ITERS)
print(f"checksum {sum(p.sum().item() for p in agent.policy.parameters()):.6f}")
