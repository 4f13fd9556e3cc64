import torch


def grad_norm_penalty(out, x):
    (g,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    return 0.1 * g.pow(2).sum(1).mean()
