# expect-before: error modified by an inplace operation
# An agent holds a network built by a class of another file and steps two of
# its parts with two optimizers (`self.net.fraction`, and `self.net.encoder`
# with `self.net.quantile`), running it through its methods. The quantile loss
# goes through the fractions, so after the fraction step its backward walks
# the fraction part's weights saved before that step. Reported without a fix:
# the quantile loss should use the fractions detached.
import os

import torch

from nets import QuantileNet

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Agent:
    def __init__(self):
        self.net = QuantileNet()
        self.fraction_optim = torch.optim.Adam(self.net.fraction.parameters(), lr=1e-3)
        self.quantile_optim = torch.optim.Adam(list(self.net.encoder.parameters()) +
                                               list(self.net.quantile.parameters()), lr=1e-3)

    def learn(self, x, y):
        e = self.net.embed(x)
        f = self.net.fractions(e.detach())
        fraction_loss = (f - y).pow(2).mean()
        quantile_loss = ((self.net.quantiles(e) - y) * f).pow(2).mean()
        self.fraction_optim.zero_grad()
        fraction_loss.backward(retain_graph=True)
        self.fraction_optim.step()
        self.quantile_optim.zero_grad()
        quantile_loss.backward()
        self.quantile_optim.step()
        return fraction_loss.item(), quantile_loss.item()


agent = Agent()
for i in range(ITERS):
    fraction_loss, quantile_loss = agent.learn(torch.randn(8, 4), torch.randn(8, 1))
    print(f"{i} fraction {fraction_loss:.6f} quantile {quantile_loss:.6f}")
print(f"checksum {sum(p.sum().item() for p in agent.net.parameters()):.6f}")
