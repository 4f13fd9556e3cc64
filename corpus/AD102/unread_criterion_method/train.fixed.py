# expect-before: grows
# autodetach-test: unsafe
# A criterion object of a library installed in site-packages/ (put on sys.path;
# the tool reads no site-packages) is backwarded through its own `backward()`; `result()` hands
# back the root of the summed loss (a tensor), and the loop adds it to `total` with its graph.
# That `result()` returns a tensor with a graph is inferred (no tensor has such
# a method, the class is not read; it might return a number), so the
# `.detach()` fix is unsafe.
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))
from seqcrit import SeqCriterion  # noqa: E402

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Loop:
    def __init__(self, crit):
        self.crit = crit

    def _step(self, model, x, y):
        crit = self.crit
        crit.reset()
        for t in range(x.size(1)):
            crit.eval_batch(model(x[:, t]), y)
        model.zero_grad()
        crit.backward()
        self.opt.step()
        return crit.result()

    def _epoch(self, model):
        total = 0
        for _ in range(ITERS):
            loss = self._step(model, torch.randn(8, 2, 3), torch.randn(8, 1))
            total += loss.detach()
        return total

    def fit(self, model):
        self.opt = torch.optim.SGD(model.parameters(), lr=0.05)
        return self._epoch(model)


print("%.6f" % float(Loop(SeqCriterion()).fit(torch.nn.Linear(3, 1))))
