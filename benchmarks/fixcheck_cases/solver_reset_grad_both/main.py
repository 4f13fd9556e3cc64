# Control for solver_reset_grad_d_only: reset_grad() zeroes BOTH optimizers
# (as StarGAN's does), so G's gradients from the D backward are discarded
# before G's backward. D(fake.detach()) in the D loss (AD103) and
# retain_graph=True on the D backward both give the reference.
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
