# A StarGAN-like Solver whose reset_grad() zeroes ONLY the D optimizer (its
# name says "all"); G's optimizer is zeroed once, at the top of the step. G
# gradients from the D backward stay and are used by G's step. Correct:
# retain_graph=True on the D backward; D(fake.detach()) would change G.
import torch
import torch.nn as nn

from solver import Solver


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    solver = Solver(G, D, g_lr=1e-3, d_lr=1e-3)
    for _ in range(6):
        print(solver.train_step(torch.randn(16, 8)))


if __name__ == "__main__":
    main()
