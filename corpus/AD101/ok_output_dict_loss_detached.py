# expect-before: runs
# A step function returns a dict of outputs; the loop backwards its loss,
# then replaces the loss in the dict by a detached copy before keeping the
# dict for the end-of-epoch summary. Nothing kept holds a graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))

    def training_step(self, x, y):
        pred = self.body(x)
        return {"loss": (pred - y).pow(2).mean(), "count": x.shape[0]}


def train_epoch(model, optimizer, batches):
    outputs = []
    for x, y in batches:
        optimizer.zero_grad()
        output = model.training_step(x, y)
        output["loss"].backward()
        optimizer.step()
        output["loss"] = output["loss"].detach()
        outputs.append(output)
    return sum(o["loss"].item() * o["count"] for o in outputs) / sum(o["count"] for o in outputs)


net = Regressor()
sgd = torch.optim.SGD(net.parameters(), lr=0.05)
data = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(ITERS)]
for epoch in range(2):
    print(f"epoch {epoch} mean {train_epoch(net, sgd, data):.6f}")

print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
