# expect-before: runs
# autodetach-test: unsafe
# A CTR-style base model: `fit` adds `self.aux_loss` to every loss and
# backwards with retain_graph=True. `add_auxiliary_loss` stores what a
# subclass's forward (out of sight) hands it; here no subclass does, so the
# attribute stays the zero tensor of `__init__` and nothing walks the graph
# again: the retain only keeps one batch's activations alive into the next.
# That every caller stores a fresh graph there each forward is inferred, not
# seen (a graph stored once would need the retain), so dropping it is unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class BaseModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(6, 1)
        self.aux_loss = torch.zeros((1,))

    def forward(self, x):
        return torch.sigmoid(self.linear(x)).squeeze(-1)

    def add_auxiliary_loss(self, aux_loss, alpha):
        self.aux_loss = aux_loss * alpha

    def fit(self, batches, optim):
        total = 0.0
        for x, y in batches:
            y_pred = self(x)
            optim.zero_grad()
            loss = F.binary_cross_entropy(y_pred, y, reduction="sum")
            total_loss = loss + self.aux_loss
            total += total_loss.item()
            total_loss.backward(retain_graph=True)
            optim.step()
        return total


model = BaseModel()
optim = torch.optim.SGD(model.parameters(), lr=0.01)
data = [(torch.randn(16, 6), torch.randint(0, 2, (16,)).float()) for _ in range(ITERS)]
for epoch in range(ITERS):
    print(f"epoch {epoch} loss {model.fit(data, optim):.6f}")
