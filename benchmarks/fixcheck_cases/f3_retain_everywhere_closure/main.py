import itertools

import torch
import torch.nn as nn

torch.manual_seed(0)
enc = nn.Sequential(nn.Linear(6, 8), nn.Tanh())
dec = nn.Linear(8, 6)
opt = torch.optim.SGD(itertools.chain(enc.parameters(), dec.parameters()), lr=0.05)
x = torch.randn(20, 6)


def closure():
    opt.zero_grad()
    h = enc(x)
    rec = (dec(h) - x).pow(2).mean()
    rec.backward(retain_graph=True)
    sparsity = h.abs().mean() * 0.1
    sparsity.backward(retain_graph=True)
    return rec + sparsity


for it in range(5):
    loss = opt.step(closure)
print(loss.item())
