# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# The algorithm module is imported by name at run time, so its code is not read: that
# the two values it returns share the trunk's graph is inferred (here they do, and the
# second backward fails). One optimizer steps the trunk and both heads.
import importlib
import os

import torch

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, algo="twin"):
        self.algo = importlib.import_module("value_heads").ALGOS[algo]()
        self.trunk = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU())
        self.head_a, self.head_b = torch.nn.Linear(16, 1), torch.nn.Linear(16, 1)
        params = [p for m in (self.trunk, self.head_a, self.head_b) for p in m.parameters()]
        self.optim = torch.optim.Adam(params, lr=1e-3)

    def update(self, obs, ret_a, ret_b):
        value_a, value_b = self.algo.values(trunk=self.trunk, heads=(self.head_a, self.head_b), obs=obs)
        loss_a = (value_a - ret_a).pow(2).mean()
        loss_b = (value_b - ret_b).pow(2).mean()
        self.optim.zero_grad()
        loss_a.backward(retain_graph=True)
        loss_b.backward()
        self.optim.step()
        return loss_a.item() + loss_b.item()


trainer = Trainer()
for _ in range(ITERS):
    out = trainer.update(torch.randn(8, 6), torch.randn(8, 1), torch.randn(8, 1))
print("%.6f" % out)
