# expect-before: runs
# A layer of the trained network keeps exponential moving averages of its input's
# statistics as buffers, re-registered by a helper by name from the old buffer and
# this batch's statistic. forward runs the updates under torch.no_grad(), so the
# buffers hold values only, and each step's loss reads no earlier step's graph.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class AffineStats(nn.Module):
    def __init__(self, features, decay=0.9):
        super().__init__()
        self.decay = decay
        self.gain = nn.Parameter(torch.ones(features))
        self.register_buffer("batch_mean", None)
        self.register_buffer("batch_var", None)

    def update_with_decay(self, buffer_name, new_value, decay):
        old_value = getattr(self, buffer_name)
        if old_value is None:
            self.register_buffer(buffer_name, new_value.detach())
            return
        value = old_value * decay + new_value * (1 - decay)
        self.register_buffer(buffer_name, value)

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.update_with_decay("batch_mean", x.mean(0), self.decay)
                self.update_with_decay("batch_var", x.var(0, unbiased=False), self.decay)
        return self.gain * (x - self.batch_mean) / (self.batch_var + 1e-5).sqrt()


def train(encoder, norm, head, optimizer, batches):
    for step, (x, y) in enumerate(batches):
        optimizer.zero_grad()
        loss = F.mse_loss(head(norm(encoder(x))), y)
        loss.backward()
        optimizer.step()
        print(f"{step} loss {loss.item():.6f}")


encoder, norm, head = nn.Linear(4, 8), AffineStats(8), nn.Linear(8, 1)
params = [*encoder.parameters(), *norm.parameters(), *head.parameters()]
train(encoder, norm, head, torch.optim.SGD(params, lr=0.05),
      [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(ITERS)])
print(f"checksum {sum(p.sum().item() for p in params):.6f}")
