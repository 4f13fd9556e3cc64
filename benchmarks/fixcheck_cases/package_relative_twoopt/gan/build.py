import torch
import torch.nn as nn


def build(lr=1e-3):
    nets = {
        "G": nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8)),
        "D": nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)),
    }
    opts = {name: torch.optim.Adam(net.parameters(), lr=lr) for name, net in nets.items()}
    return nets, opts
