# expect-before: runs
# A robot-learning trainer (mohou's train loop): the model's loss method returns
# a LossDict of tensors, `loss_dict.total()` is backwarded, and the epoch keeps
# only `loss_dict.to_float_lossdict()`, which the sibling module annotates as a
# FloatLossDict (a `Dict[str, float]` subclass) and fills with `.item()` values:
# the lists of per-batch dicts hold plain floats, no graph.
import os
from typing import List

import torch
import torch.nn as nn

from lossdict import FloatLossDict, LossDict, average_float_loss_dict

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))

    def loss(self, sample):
        x, y = sample
        out = self.net(x)
        return LossDict(mse=(out - y).pow(2).mean(), l1=0.1 * (out - y).abs().mean())


def train(model, loader):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(2):
        model.train()
        train_ld_list: List[FloatLossDict] = []
        for samples in loader:
            optimizer.zero_grad()
            loss_dict = model.loss(samples)
            loss_dict.total().backward()
            fld = loss_dict.to_float_lossdict()
            train_ld_list.append(fld)
            optimizer.step()
        mean = average_float_loss_dict(train_ld_list)
        print(" ".join(f"{k} {v:.6f}" for k, v in sorted(mean.items())))


model = Model()
data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
train(model, data)
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
