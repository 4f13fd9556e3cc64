# expect-before: runs
# Two whole terms of a loss cut on purpose. `reg - reg.detach()` adds the
# regulariser's gradient but not its value (the loss prints the task loss
# alone): the cut term reads the same value another term reads live. And a
# teacher's confidence, cut, shifts the printed loss without training the
# teacher, which the optimizer does not step.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_epoch(model, teacher, loader, optimizer, weight=0.01):
    model.train()
    for x, y in loader:
        out = model(x)
        task = nn.functional.cross_entropy(out, y)
        reg = model.weight.pow(2).sum()
        confidence = teacher(x).softmax(1).max(1)[0].mean().detach()
        loss = task + weight * reg - weight * reg.detach() + confidence
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"loss {loss.item():.6f}")


torch.manual_seed(0)
net, teacher = nn.Linear(8, 3), nn.Linear(8, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = [(torch.randn(4, 8), torch.randint(0, 3, (4,))) for _ in range(ITERS)]
train_epoch(net, teacher, data, opt)
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
