# expect-before: error Trying to backward through the graph a second time
# A relative position bias computed from a learned table and cached per
# sequence length on the module: the second training step gets the first
# step's tensor back, whose graph the first backward freed (and whose values
# predate the optimizer step). Reported without a fix: the cache itself is
# wrong while the table is trained.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class PositionBias(nn.Module):
    def __init__(self, max_len, learned=True):
        super().__init__()
        self.table = nn.Parameter(torch.zeros(2 * max_len - 1), requires_grad=learned)
        self.cache = {}

    def forward(self, n):
        if n in self.cache:
            return self.cache[n]
        idx = torch.arange(n)
        rel = idx[None, :] - idx[:, None] + n - 1
        bias = self.table[rel].tanh()
        self.cache[n] = bias
        return bias


class Mixer(nn.Module):
    def __init__(self, dim, max_len):
        super().__init__()
        self.bias = PositionBias(max_len)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        attn = torch.softmax(self.bias(x.shape[1]), dim=-1)
        return self.proj(attn @ x)


class Trainer:
    def __init__(self, model, lr=0.05):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)

    def step(self, x, y):
        loss = F.mse_loss(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


trainer = Trainer(Mixer(4, 8))
for it in range(ITERS):
    print(f"{it} loss {trainer.step(torch.randn(2, 6, 4), torch.randn(2, 6, 4)):.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
