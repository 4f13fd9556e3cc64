# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# A DDPG update written with both losses first: the actor loss goes through
# the critic, and the critic's optimizer steps before the actor backward.
import os

import torch
from torch import nn, optim
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Actor(nn.Module):
    def __init__(self, s_dim, a_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(s_dim, 32), nn.ReLU(), nn.Linear(32, a_dim), nn.Tanh())

    def forward(self, s):
        return self.net(s)


class Critic(nn.Module):
    def __init__(self, s_dim, a_dim):
        super().__init__()
        self.fc1 = nn.Linear(s_dim + a_dim, 32)
        self.fc2 = nn.Linear(32, 1)

    def forward(self, s, a):
        return self.fc2(F.relu(self.fc1(torch.cat([s, a], dim=1))))


def update(actor, critic, actor_opt, critic_opt, batch, gamma=0.99):
    state, action, reward, next_state = batch
    with torch.no_grad():
        target_q = reward + gamma * critic(next_state, actor(next_state))
    critic_loss = F.mse_loss(critic(state, action), target_q)
    actor_loss = -critic(state, actor(state)).mean()
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()
    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()
    return critic_loss.item(), actor_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    actor, critic = Actor(3, 1), Critic(3, 1)
    actor_opt = optim.Adam(actor.parameters(), lr=1e-3)
    critic_opt = optim.Adam(critic.parameters(), lr=1e-3)
    for it in range(ITERS):
        s = torch.randn(32, 3)
        a = torch.rand(32, 1) * 2 - 1
        r = -(s[:, :1] - a).pow(2)
        s2 = s + 0.1 * torch.randn(32, 3)
        c_loss, a_loss = update(actor, critic, actor_opt, critic_opt, (s, a, r, s2))
        print(f"{it} critic {c_loss:.6f} actor {a_loss:.6f}")
    print(f"checksum {sum(p.sum().item() for p in actor.parameters()):.6f}")
