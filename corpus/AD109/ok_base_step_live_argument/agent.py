import torch
from torch import nn
import torch.nn.functional as F


class DDPGAgent:
    def __init__(self, obs_dim=8, action_dim=2, lr=1e-2):
        self.encoder = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU())
        self.actor = nn.Sequential(nn.Linear(16, action_dim), nn.Tanh())
        self.critic = nn.Linear(16 + action_dim, 1)
        self.encoder_opt = torch.optim.Adam(self.encoder.parameters(), lr=lr)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=lr)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=lr)

    def aug_and_encode(self, obs):
        return self.encoder(obs + 0.01 * torch.randn_like(obs))

    def update_critic(self, obs, action, reward, next_obs):
        with torch.no_grad():
            target_q = reward + 0.99 * self.critic(torch.cat([next_obs, self.actor(next_obs)], 1))
        q = self.critic(torch.cat([obs, action], 1))
        critic_loss = F.mse_loss(q, target_q)
        self.encoder_opt.zero_grad()
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()
        self.encoder_opt.step()
        return critic_loss.item()

    def update_actor(self, obs):
        actor_loss = -self.critic(torch.cat([obs, self.actor(obs)], 1)).mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()
        return actor_loss.item()
