# expect-before: grows
# autodetach-test: unsafe
# A tally built by `tally.make_tally()`, a factory of vendor/ that the script
# puts on sys.path at run time (out of the tool's sight), is handed each
# step's loss with its graph. That the object keeps its argument as a list
# would is inferred (its code is not read), so the `.detach()` fix is unsafe.
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor"))
import tally  # noqa: E402

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Fitter:
    def __init__(self):
        self.net = torch.nn.Linear(5, 1)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=0.01)
        self.log = tally.make_tally()

    def step(self, x, y):
        self.opt.zero_grad()
        err = (self.net(x) - y).pow(2).mean()
        err.backward()
        self.opt.step()
        return err.sqrt()  # the RMSE, for the log

    def epoch(self, n):
        for _ in range(n):
            err = self.step(torch.randn(16, 5), torch.randn(16, 1))
            self.log.add(err)
        return self.log.mean()


fitter = Fitter()
out = fitter.epoch(ITERS)
print("%.6f" % (float(out) * ITERS))
