# expect-before: runs
# Actor-critic with a shared body: the advantage `ret - values.detach()` is used both
# to weight the policy's log-probabilities (right: the baseline must not learn from the
# policy term) and, squared, as the critic's loss. Squared from the cut values and the
# returns (filled item by item, no graph) alone, the critic term is a constant: the
# value head `self.v` reaches the loss only through it and never learns.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 16)
        self.pi = nn.Linear(16, 2)
        self.v = nn.Linear(16, 1)
        self.opt = torch.optim.SGD(self.parameters(), lr=0.05)

    def update(self, obs, acts, rews):
        h = torch.relu(self.body(obs))
        logp = torch.log_softmax(self.pi(h), -1).gather(1, acts[:, None]).squeeze(1)
        values = self.v(h).squeeze(1)
        ret = torch.zeros(len(rews))
        running = 0.0
        for t in reversed(range(len(rews))):
            running = rews[t] + 0.9 * running
            ret[t] = running
        adv = ret - values.detach()
        actor = -logp * adv
        critic = adv.pow(2)
        loss = torch.mean(actor + 0.5 * critic)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


agent = ActorCritic()
total = 0.0
for it in range(ITERS):
    total += agent.update(torch.randn(6, 4), torch.randint(0, 2, (6,)), torch.randn(6))
print(f"mean loss {total / ITERS:.6f}")
print(f"value head {agent.v.weight.sum().item():.6f}")
