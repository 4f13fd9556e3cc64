import itertools

import torch


def make_optimizers(G, D, joint=False, lr=1e-3):
    if joint:
        opt = torch.optim.Adam(itertools.chain(G.parameters(), D.parameters()), lr=lr)
        return opt, opt
    return torch.optim.Adam(G.parameters(), lr=lr), torch.optim.Adam(D.parameters(), lr=lr)
