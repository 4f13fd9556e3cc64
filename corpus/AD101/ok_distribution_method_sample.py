# expect-before: runs
# An actor whose acting method draws `dist.sample()` from a distribution another
# method of its class builds from the network (`return Normal(mu, sigma)`): a sample
# carries no graph (only `rsample` does), so the action fed back into the next state
# and kept in `self.action` keeps nothing. No finding.
import os
import torch
import torch.nn as nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GaussHeadNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 8)
        self.mu = nn.Linear(8, 1)
        self.sigma = nn.Linear(8, 1)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return torch.tanh(self.mu(h)), nn.functional.softplus(self.sigma(h))


class SampledActionAgent:
    def __init__(self):
        self.net = GaussHeadNet()
        self.opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)

    def action_dist(self, s):
        mu, sigma = self.net(s)
        dist = torch.distributions.Normal(mu.squeeze(), sigma.squeeze() + 0.1)
        return dist

    def act(self, s):
        dist = self.action_dist(s)
        self.action = torch.clamp(dist.sample(), -2.0, 2.0)
        return self.action

    def learn(self, s, a, adv):
        dist = self.action_dist(s)
        loss = -(dist.log_prob(a) * adv).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


agent = SampledActionAgent()
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
