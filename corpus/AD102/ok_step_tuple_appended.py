# expect-before: runs
# The trainer of flag_step_tuple_appended, whose step returns numbers
# (`loss.item(), out.mean().item()`): the history keeps no graph, nothing is
# reported.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.05)

    def step(self, x, y):
        out = self.model(x)
        loss = (out - y).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item(), out.mean().item()

    def fit(self, data):
        history = []
        for x, y in data:
            result = self.step(x, y)
            history.append(result)
        return history


trainer = Trainer(nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2)))
data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
for loss, mean in trainer.fit(data):
    print(f"loss {loss:.6f} mean {mean:.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f} over {ITERS} steps")
