import itertools

import torch
import torch.nn as nn

from trainer import GANSteps


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.Adam(itertools.chain(G.parameters(), D.parameters()), lr=1e-3)
    steps = GANSteps(G, D)
    for it in range(6):
        real = torch.randn(8, 8)
        opt.zero_grad()
        fake = G(torch.randn(8, 4))
        ld = steps.d_step(real, fake)
        lg = steps.g_step(fake)
        opt.step()
        print(it, ld, lg)


if __name__ == "__main__":
    main()
