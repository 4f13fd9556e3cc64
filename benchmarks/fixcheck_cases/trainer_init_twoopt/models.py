import torch.nn as nn


def build_models(z_dim=4, x_dim=8, hidden=16):
    G = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, x_dim))
    D = nn.Sequential(nn.Linear(x_dim, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, 1))
    return G, D
