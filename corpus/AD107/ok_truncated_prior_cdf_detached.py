# expect-before: runs
# The same prior, with the cdf of the lower bound registered detached (a
# constant, as the author means it): no graph is kept in __init__, nothing is
# reported, and every step trains the mean.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class TruncatedNormal(nn.Module):
    """A normal prior truncated below at `low`, sampled through its inverse cdf."""

    def __init__(self, mu, low, learnable=True):
        super().__init__()
        if learnable:
            self.mu = nn.Parameter(mu)
        else:
            self.register_buffer("mu", mu)
        self._normal = torch.distributions.Normal(torch.tensor(0.0), torch.tensor(1.0))
        alpha = low - self.mu
        self.register_buffer("cdf_low", self._normal.cdf(alpha).detach())

    def sample(self, n):
        u = torch.rand(n, *self.mu.shape)
        r = self.cdf_low + (1 - self.cdf_low) * u
        return self._normal.icdf(r) + self.mu


def main():
    prior = TruncatedNormal(torch.zeros(3), torch.tensor(-1.0))
    opt = torch.optim.SGD(prior.parameters(), lr=0.1)
    for i in range(ITERS):
        x = prior.sample(16)
        loss = (x - 0.5).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"loss {loss.item():.6f}")
    print(f"mean {prior.mu.sum().item():.6f} after {ITERS} steps")


if __name__ == "__main__":
    torch.manual_seed(0)
    main()
