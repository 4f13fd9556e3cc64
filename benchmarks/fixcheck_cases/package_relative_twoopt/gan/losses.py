import torch.nn.functional as F


def d_loss_fn(d_real, d_fake):
    return F.softplus(-d_real).mean() + F.softplus(d_fake).mean()


def g_loss_fn(d_fake):
    return F.softplus(-d_fake).mean()
