import torch


def make_optimizer(modules, lr=0.05):
    params = []
    for m in modules:
        params += list(m.parameters())
    return torch.optim.SGD(params, lr=lr, momentum=0.9)
