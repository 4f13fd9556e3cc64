# expect-before: runs
# The distribution comes from a function of the file (`return Normal(mu, sigma)`)
# handed the network: its `sample()` carries no graph, so the actions fed back into
# the next state keep nothing. No finding.
import os
import torch
import torch.nn as nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GaussHeadNetB(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 8)
        self.mu = nn.Linear(8, 1)
        self.sigma = nn.Linear(8, 1)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return torch.tanh(self.mu(h)), nn.functional.softplus(self.sigma(h))


def gauss_dist_of(net, s):
    mu, sigma = net(s)
    return torch.distributions.Normal(mu.squeeze(), sigma.squeeze() + 0.1)


class HelperDistAgent:
    def __init__(self):
        self.net = GaussHeadNetB()
        self.opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)

    def act(self, s):
        dist = gauss_dist_of(self.net, s)
        self.action = torch.clamp(dist.sample(), -2.0, 2.0)
        return self.action

    def learn(self, s, a, adv):
        dist = gauss_dist_of(self.net, s)
        loss = -(dist.log_prob(a) * adv).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


agent = HelperDistAgent()
state = torch.randn(1, 3)
rewards = []
total = 0.0
for step in range(ITERS * 3):
    a = agent.act(state)
    state = torch.randn(1, 3) + a
    r = -float(a.abs())
    rewards.append(r)
    total += agent.learn(state, a, torch.tensor(r))
print(f"{total:.6f} {sum(rewards):.6f}")
