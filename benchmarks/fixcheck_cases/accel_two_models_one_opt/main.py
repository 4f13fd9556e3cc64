# Accelerate-like stand-in, two models but ONE optimizer over both (a list
# of two param groups), prepared in a different order than built. Encoder ->
# head chain with a reconstruction and a classification loss, each
# backwarded through accelerator.backward: the second needs the encoder graph
# the first freed. retain_graph=True on the first is the only safe fix.
import torch
import torch.nn as nn
import torch.nn.functional as F

from accel import Accelerator


def main():
    torch.manual_seed(0)
    acc = Accelerator()
    enc = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
    head = nn.Linear(16, 3)
    opt = torch.optim.Adam([{"params": enc.parameters()}, {"params": head.parameters(), "lr": 3e-3}], lr=1e-3)
    opt, head, enc = acc.prepare(opt, head, enc)
    for step in range(6):
        x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
        h = enc(x)
        opt.zero_grad()
        acc.backward(h.pow(2).mean())
        acc.backward(F.cross_entropy(head(h), y))
        opt.step()
    print(h.sum().item())


if __name__ == "__main__":
    main()
