# expect-before: runs
# The shape of flag_state_carried_past_step, written correctly: the loop
# carries the observation, not its features, and computes the state at the
# start of each iteration, after the previous step.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 8))
        self.policy = nn.Linear(8, 2)

    def get_state(self, obs):
        return self.features(obs)

    def get_action(self, state):
        dist = torch.distributions.Categorical(logits=self.policy(state))
        action = dist.sample()
        return action, dist.log_prob(action)


def run(agent, optim, observations):
    prev = observations[0]
    for i, obs in enumerate(observations[1:]):
        state = agent.get_state(prev)
        action, logp = agent.get_action(state)
        reward = obs.sum() - action.float().sum()
        prev = obs
        loss = -(logp * reward).mean()
        optim.zero_grad()
        loss.backward()
        optim.step()
        print(f"{i} loss {loss.item():.6f}")


agent = Agent()
opt = torch.optim.SGD(agent.parameters(), lr=0.01)
run(agent, opt, [torch.randn(1, 4) for _ in range(ITERS + 1)])
print(f"checksum {sum(p.sum().item() for p in agent.parameters()):.6f}")
