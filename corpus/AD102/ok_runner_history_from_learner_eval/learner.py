import torch
import torch.nn.functional as F


class Learner:
    def __init__(self, net):
        self.net = net
        self.opt = torch.optim.SGD(net.parameters(), lr=0.05)

    def update(self, x, y):
        self.opt.zero_grad()
        gap = F.mse_loss(self.net(x), y)
        gap.backward()
        self.opt.step()
        return gap

    def probe(self, x, y):
        with torch.no_grad():
            return F.mse_loss(self.net(x), y)
