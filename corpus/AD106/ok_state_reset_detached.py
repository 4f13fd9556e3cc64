# expect-before: runs
# The same layer whose reset zeroes the state in place and then cuts its
# history (detach_), as sinabs' fix does: each sample starts from plain zeros.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class LeakyLayer(nn.Module):
    def __init__(self, n_in, n_out, decay=0.9):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.decay = decay
        self.register_buffer("v_mem", torch.zeros(1, n_out))

    def reset_states(self):
        self.v_mem.zero_().detach_()

    def forward(self, x):
        v = self.decay * self.v_mem + self.fc(x)
        self.v_mem = v
        return torch.tanh(v)


def train(layer, head, optimizer, samples):
    for it, seq in enumerate(samples):
        layer.reset_states()
        out = torch.stack([head(layer(x)) for x in seq])
        loss = F.mse_loss(out, torch.ones_like(out))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{it} loss {loss.item():.6f}")


layer, head = LeakyLayer(3, 8), nn.Linear(8, 1)
optimizer = torch.optim.SGD(list(layer.parameters()) + list(head.parameters()), lr=0.05)
samples = [[torch.randn(1, 3) for _ in range(5)] for _ in range(ITERS)]
train(layer, head, optimizer, samples)
print(f"checksum {sum(p.sum().item() for p in layer.parameters()):.6f}")
