# expect-before: runs
# Actor-critic over an episode (a common RL script shape): the actor's
# `evaluate_action` returns a detached array in one mode and a tuple
# (action, log-prob, entropy) in the other. The action handed to the
# environment is detached in both, so the next state carries no graph: the
# actor and critic losses are backwarded once each and the episode lists
# are emptied after the update.
import os

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
DETERMINISTIC = False


class Actor(nn.Module):
    def __init__(self, dim, n_actions):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, n_actions))
        self.saved_logprobs = []

    def evaluate_action(self, state):
        state = torch.as_tensor(state, dtype=torch.float32).unsqueeze(0)
        if DETERMINISTIC:
            return self.net(state).argmax(-1).detach().numpy()
        m = Categorical(logits=self.net(state))
        action = m.sample()
        return action.detach().numpy(), m.log_prob(action).squeeze(0), m.entropy().mean()


class Critic(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, 1))
        self.saved_values = []

    def forward(self, state):
        return self.net(torch.as_tensor(state, dtype=torch.float32))


class ToyEnv:
    def __init__(self):
        self.state = np.zeros(4)

    def reset(self):
        self.state = np.random.randn(4)
        return self.state

    def step(self, action):
        self.state = np.tanh(self.state + 0.1 * (action[0] - 0.5))
        return self.state, float(action[0])


def update(actor, critic, actor_opt, critic_opt, rewards):
    returns = torch.tensor(rewards)
    policy_losses, value_losses = [], []
    for log_prob, value, r in zip(actor.saved_logprobs, critic.saved_values, returns):
        value_losses.append(nn.functional.smooth_l1_loss(value, r.view(1)))
        policy_losses.append(-log_prob * (r - value.detach().item()))
    actor_opt.zero_grad()
    torch.stack(policy_losses).sum().backward()
    actor_opt.step()
    critic_opt.zero_grad()
    torch.stack(value_losses).sum().backward()
    critic_opt.step()
    del actor.saved_logprobs[:]
    del critic.saved_values[:]


def train(env):
    actor, critic = Actor(4, 2), Critic(4)
    actor_opt = torch.optim.Adam(actor.parameters(), lr=0.01)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=0.01)
    for episode in range(ITERS):
        state = env.reset()
        rewards = []
        for t in range(5):
            action, log_prob, entropy = actor.evaluate_action(state)
            value = critic(state)
            state, reward = env.step(action)
            actor.saved_logprobs.append(log_prob)
            critic.saved_values.append(value)
            rewards.append(reward)
        update(actor, critic, actor_opt, critic_opt, rewards)
        print(f"{episode} reward {sum(rewards):.1f}")
    print(f"checksum {sum(p.sum().item() for m in (actor, critic) for p in m.parameters()):.6f}")


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    train(ToyEnv())


if __name__ == "__main__":
    main()
