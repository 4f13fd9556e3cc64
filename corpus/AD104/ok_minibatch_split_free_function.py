# expect-before: runs
# A value-regression epoch in a free function that takes the model, whose
# `embedded_minibatches()` embeds the states once (`self.embed(states)`) before
# slicing them, and the gradients of every minibatch add up before one step:
# every minibatch's loss, and the activity penalty after them, walk that
# embedding's graph again, so the retain is needed (without it the second
# minibatch fails).
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ValueNet(nn.Module):
    def embedded_minibatches(self, states, targets, size):
        raise NotImplementedError


class EmbeddedValue(ValueNet):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(3, 8)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(8, 1))

    def forward(self, h):
        return self.head(h).squeeze(-1)

    def embedded_minibatches(self, states, targets, size):
        h = self.embed(states)
        return [(h[i:i + size], targets[i:i + size]) for i in range(0, len(states), size)]


def fit_values(model, optimizer, states, targets):
    optimizer.zero_grad()
    batches = model.embedded_minibatches(states, targets.detach(), 8)
    seen = 0.0
    for s, t in batches:
        loss = (model(s) - t).pow(2).mean() / len(batches)
        loss.backward(retain_graph=True)
        seen += loss.item()
    penalty = 1e-3 * sum(s.pow(2).mean() for s, _ in batches)  # an activity penalty on the embeddings
    penalty.backward()
    optimizer.step()
    return seen


torch.manual_seed(0)
ARCHS = {"embedded": EmbeddedValue}
model = ARCHS[os.environ.get("ARCH", "embedded")]()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for it in range(ITERS):
    states = torch.randn(32, 3)
    targets = states.sum(1) + 0.1 * torch.randn(32)
    print(f"{it} loss {fit_values(model, optimizer, states, targets):.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
