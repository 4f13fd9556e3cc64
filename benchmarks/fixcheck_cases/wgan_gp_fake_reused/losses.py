import torch


def gradient_penalty(D, real, fake):
    eps = torch.rand(real.size(0), 1)
    mixed = (eps * real + (1 - eps) * fake).requires_grad_(True)
    grads = torch.autograd.grad(D(mixed).sum(), mixed, create_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()
