import torch


def gradient_penalty(D, real, fake):
    alpha = torch.rand(real.size(0), 1)
    inter = alpha * real + (1 - alpha) * fake
    if not inter.requires_grad:
        inter.requires_grad_(True)
    (g,) = torch.autograd.grad(D(inter).sum(), inter, create_graph=True)
    return (g.norm(2, dim=1) - 1).pow(2).mean()


def critic_loss(D, real, fake, lam=10.0):
    return D(fake).mean() - D(real).mean() + lam * gradient_penalty(D, real, fake)
