# expect-before: runs
# An epsilon-greedy agent whose explore arm draws `random.randrange(
# env.action_space.n)` from an environment built by another file's factory,
# and whose greedy arm reads `.data[0]` of an argmax: the action is a plain
# number either way, so what the loop stores from it (the state the env
# hands back, the running reward) keeps no graph.
import os
import random

import torch
from torch import nn

from envs import make

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
random.seed(0)

env = make("line-6")


class DQN(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, env.action_space.n))

    def forward(self, x):
        return self.layers(x)

    def act(self, state, epsilon):
        if random.random() > epsilon:
            q_value = self.forward(torch.tensor(state).unsqueeze(0))
            action = int(q_value.max(1)[1].data[0])
        else:
            action = random.randrange(env.action_space.n)
        return action


model = DQN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
buffer = []
all_rewards = []
episode_reward = 0
state = env.reset()
for frame in range(ITERS * 4):
    action = model.act(state, 0.3)
    next_state, reward, done, _ = env.step(action)
    buffer.append((state, action, reward, next_state, done))
    state = next_state
    episode_reward += reward
    if done:
        state = env.reset()
        all_rewards.append(episode_reward)
        episode_reward = 0
    if len(buffer) >= 4:
        s, a, r, s2, d = zip(*random.sample(buffer, 4))
        q = model(torch.tensor(s)).gather(1, torch.tensor(a).unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            target = torch.tensor(r) + 0.9 * model(torch.tensor(s2)).max(1)[0] * (1 - torch.tensor(d).float())
        loss = (q - target).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{frame} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f} rewards {sum(all_rewards):.6f}")
