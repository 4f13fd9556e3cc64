# expect-before: runs
# autodetach-test: unsafe
# A value-regression epoch in a free function that takes the model: the
# rollout is split into minibatches by the model's `to_minibatches()` (the
# base class only declares it; the one subclass slices the tensors it is
# given), then each minibatch runs the model anew and backwards once. The
# retain keeps each minibatch's graph until the next one replaces it. The
# model is handed in, so which `to_minibatches()` runs is inferred from the
# methods of that name in sight: unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ValueNet(nn.Module):
    def to_minibatches(self, states, targets, size):
        raise NotImplementedError


class MLPValue(ValueNet):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)

    def to_minibatches(self, states, targets, size):
        return [(states[i:i + size], targets[i:i + size]) for i in range(0, len(states), size)]


def fit_values(model, optimizer, states, targets):
    batches = model.to_minibatches(states, targets.detach(), 8)
    seen = 0.0
    for s, t in batches:
        loss = (model(s) - t).pow(2).mean()
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()
        seen += loss.item()
    return seen


torch.manual_seed(0)
ARCHS = {"mlp": MLPValue}
model = ARCHS[os.environ.get("ARCH", "mlp")]()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for it in range(ITERS):
    states = torch.randn(32, 3)
    targets = states.sum(1) + 0.1 * torch.randn(32)
    print(f"{it} loss {fit_values(model, optimizer, states, targets):.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
