# Soft actor-critic whose networks are nn.Module classes of networks.py: the
# agent only calls their methods (`self.actor.sample_normal(state)`,
# `self.critic.forward(state, action)`), never the objects themselves. The
# actor loss is backwarded with retain_graph=True, but the critic loss below
# comes from a fresh critic forward on the buffer's actions: nothing walks
# the actor's graph again, so the retain only keeps it alive.
import os

import torch
import torch.nn.functional as F

from networks import ActorNetwork, CriticNetwork

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Buffer:
    def __init__(self, dims=4, n_actions=2, size=64):
        self.states = torch.randn(size, dims)
        self.actions = torch.rand(size, n_actions) * 2 - 1
        self.rewards = torch.randn(size)
        self.next_states = torch.randn(size, dims)

    def sample(self, n):
        idx = torch.randint(0, self.states.size(0), (n,))
        return self.states[idx], self.actions[idx], self.rewards[idx], self.next_states[idx]


class Agent:
    def __init__(self, dims=4, n_actions=2, gamma=0.99):
        self.gamma = gamma
        self.memory = Buffer(dims, n_actions)
        self.actor = ActorNetwork(dims, n_actions, lr=1e-3)
        self.critic = CriticNetwork(dims, n_actions, lr=1e-3)

    def learn(self):
        state, action, reward, state_ = self.memory.sample(8)
        actions, log_probs = self.actor.sample_normal(state)
        critic_value = self.critic.forward(state, actions).view(-1)
        actor_loss = (log_probs - critic_value).mean()
        self.actor.optimizer.zero_grad()
        actor_loss.backward(retain_graph=True)
        self.actor.optimizer.step()

        with torch.no_grad():
            next_actions, _ = self.actor.sample_normal(state_)
            target = reward + self.gamma * self.critic.forward(state_, next_actions).view(-1)
        self.critic.optimizer.zero_grad()
        q = self.critic.forward(state, action).view(-1)
        critic_loss = F.mse_loss(q, target)
        critic_loss.backward()
        self.critic.optimizer.step()
        return actor_loss.item(), critic_loss.item()


torch.manual_seed(0)
agent = Agent()
for step in range(ITERS):
    a_loss, c_loss = agent.learn()
    print(f"{step} actor {a_loss:.6f} critic {c_loss:.6f}")
print(f"checksum {sum(p.sum().item() for p in agent.actor.parameters()):.6f} "
      f"{sum(p.sum().item() for p in agent.critic.parameters()):.6f}")
