import torch

from lab.losses import RankedCriterion


class Runner:
    def __init__(self, crit=RankedCriterion()):
        self.crit = crit

    def _one(self, chunks, target, net):
        crit = self.crit
        crit.restart()
        for i in range(chunks.size(0)):
            crit.collect(net(chunks[i]), target)
        net.zero_grad()
        crit.backward()
        self.opt.step()
        return crit.value()

    def _many(self, net, steps):
        history = 0
        for _ in range(steps):
            score = self._one(torch.randn(3, 6, 4), torch.zeros(6, 1), net)
            history += score
        return history

    def run(self, net, steps):
        self.opt = torch.optim.SGD(net.parameters(), lr=0.05)
        return self._many(net, steps)
