# expect-before: runs
# A meta-learner whose module class has a `spawn` method building a new
# object of the class and loading the state dict into it; a free function
# adapts a spawned copy on the support set and returns it, and the trainer
# computes the query loss with that copy, then steps the optimizer over its
# own network. The copy shares no autograd edge with `self.net`: the step
# gets no gradient and the meta-network never changes.
import os

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Learner(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.width = width
        self.body = nn.Sequential(nn.Linear(4, width), nn.ReLU(), nn.Linear(width, 3))

    def forward(self, x):
        return self.body(x)

    def spawn(self):
        twin = Learner(self.width)
        twin.load_state_dict(self.state_dict())
        return twin


def adapt(learner, xs, ys, lr=0.05):
    local = learner.spawn()
    loss = F.cross_entropy(local(xs), ys)
    grads = torch.autograd.grad(loss, list(local.parameters()))
    for p, g in zip(local.parameters(), grads):
        p.data.sub_(lr * g)
    return local


class MetaTrainer:
    def __init__(self):
        self.net = Learner(8)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def step(self, tasks):
        total = 0.0
        for xs, ys, xq, yq in tasks:
            tuned = adapt(self.net, xs, ys)
            total = total + F.cross_entropy(tuned(xq), yq)
        self.opt.zero_grad()
        total.backward()
        self.opt.step()
        return total


trainer = MetaTrainer()
for it in range(ITERS):
    batch = [(torch.randn(6, 4), torch.randint(0, 3, (6,)), torch.randn(6, 4), torch.randint(0, 3, (6,)))]
    value = trainer.step(batch)
print(f"{value.item():.6f} {trainer.net.body[0].weight.sum().item():.6f}")
