# expect-before: error modified by an inplace operation
# An option-critic loop whose agent class lives in another file: the
# features of the next observation (`state = agent.get_state(...)`) are
# computed before the step and carried into the next iteration, where
# `agent.get_action(state)` builds the log-probability from them. Nothing in
# this file says that get_action keeps its argument's graph; its code in
# agents.py does (a Categorical built from `state`, no cut), so the next
# backward walks feature weights saved before the step. Reported without a
# fix, saying that the link through get_action was read from agents.py.
import os

import torch

from agents import OptionAgent

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def run(steps):
    agent = OptionAgent()
    optim = torch.optim.RMSprop(agent.parameters(), lr=0.01)
    obs = torch.randn(1, 4)
    state = agent.get_state(obs)
    for i in range(steps):
        action, logp, entropy = agent.get_action(state)
        next_obs = torch.randn(1, 4) + action
        state = agent.get_state(next_obs)
        loss = -(logp * next_obs.sum()).mean() - 0.01 * entropy.mean()
        optim.zero_grad()
        loss.backward()
        optim.step()
        print(f"{i} loss {loss.item():.6f}")
    return agent


agent = run(ITERS)
print(f"checksum {sum(p.sum().item() for p in agent.parameters()):.6f}")
