# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A batch norm split in two, as BigGAN-style code does: the core keeps the
# running statistics and has no parameters of its own; the module around it
# owns gain and bias and hands them in. The core writes the running mean into
# its buffer with a slice assignment from the batch mean, which carries the
# graph of the layer before it: the buffer becomes a node of this step's
# graph, the next update chains onto it, and every step's graph stays alive.
# A saliency map taken in eval mode after training reads the buffers, and its
# backward walks into the freed graphs of the training steps. (The fix is
# unsafe: that the core's input carries a graph is inferred from the module
# with parameters that feeds it.)
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def batch_norm(x, gain, bias, eps=1e-5):
    mean = x.mean(0)
    var = x.var(0, unbiased=False)
    return (x - mean) * torch.rsqrt(var + eps) * gain + bias, mean, var


class StatsCore(nn.Module):
    def __init__(self, features, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("stored_mean", torch.zeros(features))
        self.register_buffer("stored_var", torch.ones(features))

    def forward(self, x, gain, bias):
        if self.training:
            out, mean, var = batch_norm(x, gain, bias)
            self.stored_mean[:] = self.stored_mean * (1 - self.momentum) + mean * self.momentum
            self.stored_var[:] = self.stored_var * (1 - self.momentum) + var * self.momentum
            return out
        return (x - self.stored_mean) * torch.rsqrt(self.stored_var + 1e-5) * gain + bias


class GainNorm(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(features))
        self.bias = nn.Parameter(torch.zeros(features))
        self.core = StatsCore(features)

    def forward(self, x):
        return self.core(x, self.gain.view(1, -1), self.bias.view(1, -1))


def train(model, optimizer, batches):
    model.train()
    for it, (x, y) in enumerate(batches):
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{it} loss {loss.item():.6f}")


model = nn.Sequential(nn.Linear(8, 16), GainNorm(16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
data = [(torch.randn(32, 8), torch.randn(32, 1)) for _ in range(ITERS)]
train(model, optimizer, data)
model.eval()
probe = torch.randn(4, 8, requires_grad=True)
model(probe).pow(2).sum().backward()
print(f"saliency {probe.grad.abs().sum().item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
