# expect-before: error modified by an inplace operation
# An option-critic style agent loop: the features of the next observation
# are computed at the end of each iteration (`state = agent.get_state(...)`,
# after the backward) and carried into the next one, where the policy's
# log-probability is built from them. The optimizer steps in between, so the
# next backward walks feature weights saved before that step. The first state
# comes from before the loop and its graph is freed by the first backward;
# the one at risk is the one each iteration rebuilds. Reported without a fix:
# the state must be recomputed after the step (or cut for the policy head).
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
    state = agent.get_state(observations[0])
    for i, obs in enumerate(observations[1:]):
        action, logp = agent.get_action(state)
        reward = obs.sum() - action.float().sum()
        state = agent.get_state(obs)
        loss = -(logp * reward).mean()
        optim.zero_grad()
        loss.backward()
        optim.step()
        print(f"{i} loss {loss.item():.6f}")


agent = Agent()
opt = torch.optim.SGD(agent.parameters(), lr=0.01)
run(agent, opt, [torch.randn(1, 4) for _ in range(ITERS + 1)])
print(f"checksum {sum(p.sum().item() for p in agent.parameters()):.6f}")
