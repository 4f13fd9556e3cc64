import torch
import torch.nn as nn


def make_models(cfg):
    return {
        "encoder": nn.Sequential(nn.Linear(8, cfg.hidden), nn.ReLU()),
        "decoder": nn.Linear(cfg.hidden, 8),
    }


def make_optimizer(cfg, models):
    return torch.optim.Adam([p for name in cfg.parts for p in models[name].parameters()], lr=cfg.lr)
