import torch
import torch.nn as nn

from solver import Solver


def main():
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16))
    head = nn.Linear(16, 3)
    solver = Solver(backbone, head)
    for it in range(5):
        x, y = torch.randn(12, 10), torch.randint(0, 3, (12,))
        print(it, solver.step(x, y))


if __name__ == "__main__":
    main()
