import torch.nn as nn


def build_model(cfg):
    G = nn.Sequential(nn.Linear(cfg["z"], cfg["hidden"]), nn.ReLU(), nn.Linear(cfg["hidden"], cfg["x"]))
    D = nn.Sequential(nn.Linear(cfg["x"], cfg["hidden"]), nn.ReLU(), nn.Linear(cfg["hidden"], 1))
    return G, D
