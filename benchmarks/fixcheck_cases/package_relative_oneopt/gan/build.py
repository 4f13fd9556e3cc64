import torch
import torch.nn as nn


def build(lr=1e-3):
    nets = {
        "G": nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8)),
        "D": nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)),
    }
    opt = torch.optim.Adam((p for net in nets.values() for p in net.parameters()), lr=lr)
    return nets, opt
