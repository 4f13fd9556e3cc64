"""The project's agents (imported by the script that builds the trainer):
fit_batch runs one update and returns the losses it has just backwarded."""
import torch
import torch.nn as nn


class DDPG:
    def __init__(self):
        self.actor = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
        self.critic = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
        self.actor_optim = torch.optim.SGD(self.actor.parameters(), lr=0.05)
        self.critic_optim = torch.optim.SGD(self.critic.parameters(), lr=0.05)
        self.criterion = nn.MSELoss()

    def fit_batch(self, states, actions, targets):
        self.critic_optim.zero_grad()
        loss = self.criterion(self.critic(torch.cat([states, actions], 1)), targets)
        loss.backward()
        self.critic_optim.step()
        self.actor_optim.zero_grad()
        policy_loss = -self.critic(torch.cat([states, self.actor(states)], 1)).mean()
        policy_loss.backward()
        self.actor_optim.step()
        return loss, policy_loss
