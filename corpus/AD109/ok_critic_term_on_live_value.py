# expect-before: runs
# Actor-critic with a shared body: the critic's error `ret - values` stays live and is
# squared into the critic's loss, while the policy term weights its log-probabilities by
# the error cut (`adv.detach()`), the usual baseline: nothing is reported.
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
        adv = ret - values
        actor = -logp * adv.detach()
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
