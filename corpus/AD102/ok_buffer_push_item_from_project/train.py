# expect-before: runs
# `option` is a plain int: `Critic.greedy_option` and
# `Critic.predict_option_termination` (agent.py) return `.item()` of an
# argmax, so `buffer.push(obs, option, reward)` keeps no graph
# (option-critic-pytorch's main.py).
import os

import torch

from agent import Critic, ReplayBuffer

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

critic = Critic(4, 3)
optim = torch.optim.SGD(critic.parameters(), lr=0.05)
buffer = ReplayBuffer()

obs = torch.randn(1, 4)
state = critic.get_state(obs)
option = critic.greedy_option(state)
for step in range(ITERS):
    reward = float(step % 2)
    buffer.push(obs, option, reward)
    obs = torch.randn(1, 4)
    state = critic.get_state(obs)
    done, option = critic.predict_option_termination(state, option)
    loss = (critic.q(state)[0, option] - reward) ** 2
    optim.zero_grad()
    loss.backward()
    optim.step()
    print(f"{step} loss {loss.item():.6f} option {option}")

print(f"checksum {sum(p.sum().item() for p in critic.parameters()):.6f}")
