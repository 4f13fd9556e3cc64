# expect-before: runs
# The shape of flag_state_through_imported_agent, where the agent's
# get_action (agents.py) cuts the state it is given (`state.detach()`, as
# option-critic's fix does with `state.data`): the policy head learns on
# fixed features, and the carried state's graph is never walked after the
# step. agents.py says so, so nothing is reported.
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
