# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A learnable piecewise activation that first collects statistics of its
# input (phase one), then uses them to place its breakpoints. The statistics
# are exponential moving averages kept in registered buffers, rebuilt from
# their old value and the batch mean and variance of the input, which carries
# the graph of the layer before it: each average hangs from the last, so the
# graph of every step of phase one stays alive, and the first backward of
# phase two walks into them through the breakpoints. (`reset_parameters`
# zeroes the buffers once, from `__init__`: initialisation, not a reset
# between steps. The fix is unsafe: that the input carries a graph is
# inferred.)
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class PiecewiseAct(nn.Module):
    def __init__(self, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.left = nn.Parameter(torch.tensor(-3.0))
        self.right = nn.Parameter(torch.tensor(3.0))
        self.register_buffer("running_mean", torch.zeros(1))
        self.register_buffer("running_var", torch.ones(1))
        self.reset_parameters()

    def reset_parameters(self):
        self.running_mean.zero_()
        self.running_var.fill_(1)

    def forward(self, x, collect=False):
        if collect:
            mean = x.mean()
            var = x.var()
            self.running_mean = (self.momentum * self.running_mean + (1 - self.momentum) * mean).detach()
            self.running_var = (self.momentum * self.running_var + (1 - self.momentum) * var).detach()
            return F.relu(x)
        scale = self.running_var.sqrt()
        low = self.running_mean + self.left * scale
        high = self.running_mean + self.right * scale
        return torch.minimum(torch.maximum(x, low), high)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.act = PiecewiseAct()
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x, collect=False):
        return self.fc2(self.act(self.fc1(x), collect))


class Trainer:
    def __init__(self, model, lr=0.05):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)

    def step(self, x, y, collect):
        loss = F.mse_loss(self.model(x, collect), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


trainer = Trainer(Net())
for it in range(ITERS):
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    print(f"{it} loss {trainer.step(x, y, collect=it < ITERS // 2 + 1):.6f}")
act = trainer.model.act
print(f"stats {act.running_mean.item():.6f} {act.running_var.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
