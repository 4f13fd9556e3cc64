import torch
import torch.nn as nn

from utils import backprop


def main():
    torch.manual_seed(0)
    enc = nn.Sequential(nn.Linear(6, 10), nn.Tanh())
    head = nn.Linear(10, 2)
    opt = torch.optim.SGD(list(enc.parameters()) + list(head.parameters()), lr=0.05)
    for it in range(5):
        x, y = torch.randn(16, 6), torch.randn(16, 2)
        opt.zero_grad()
        h = enc(x)
        task = (head(h) - y).pow(2).mean()
        backprop(task)
        reg = h.pow(2).mean()
        backprop(reg, 0.1)
        opt.step()
        print(it, task.item())


if __name__ == "__main__":
    main()
