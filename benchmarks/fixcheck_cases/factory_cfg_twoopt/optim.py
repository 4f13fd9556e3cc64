import torch


def get_optimizer(cfg, params):
    if cfg["optim"] == "sgd":
        return torch.optim.SGD(params, lr=cfg["lr"], momentum=0.9)
    return torch.optim.Adam(params, lr=cfg["lr"])
