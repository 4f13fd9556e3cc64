# expect-before: runs
# A training function unpacks its networks from a list argument
# (`encoder, head_a, head_b = models`). The first backward keeps its graph
# because the second loss goes through the same `features`: the
# retain_graph=True is needed (without it the second backward fails with
# "Trying to backward through the graph a second time"). Both backwards come
# before the one step.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train_epoch(models, optimizer, batches):
    encoder, head_a, head_b = models
    for i, (x, ya, yb) in enumerate(batches):
        optimizer.zero_grad()
        features = encoder(x)
        loss_a = F.mse_loss(head_a(features), ya)
        loss_a.backward(retain_graph=True)
        loss_b = F.mse_loss(head_b(features), yb)
        loss_b.backward()
        optimizer.step()
        print(f"{i} a {loss_a.item():.6f} b {loss_b.item():.6f}")


nets = [nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8)), nn.Linear(8, 1), nn.Linear(8, 2)]
opt = torch.optim.SGD([p for n in nets for p in n.parameters()], lr=0.1)
data = [(torch.randn(8, 6), torch.randn(8, 1), torch.randn(8, 2)) for _ in range(ITERS)]
train_epoch(nets, opt, data)
print(f"checksum {sum(p.sum().item() for n in nets for p in n.parameters()):.6f}")
