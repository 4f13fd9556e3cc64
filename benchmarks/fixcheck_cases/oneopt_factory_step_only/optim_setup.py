import torch


def make_optimizer(*nets):
    return torch.optim.Adam([p for n in nets for p in n.parameters()], lr=1e-3)
