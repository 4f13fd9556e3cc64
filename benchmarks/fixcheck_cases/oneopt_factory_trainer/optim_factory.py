import torch


def build_optimizer(*nets, lr=1e-2):
    params = []
    for net in nets:
        params += list(net.parameters())
    return torch.optim.SGD(params, lr=lr, momentum=0.9)
