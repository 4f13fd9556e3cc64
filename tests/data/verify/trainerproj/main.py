import torch
from torch import nn
from trainer import Solver


class Cfg:
    lr = 1e-3


def main():
    G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))
    D = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    s = Solver(G, D, Cfg())
    for i in range(3):
        s.step(torch.randn(8, 4), torch.randn(8, 4))


if __name__ == "__main__":
    main()
