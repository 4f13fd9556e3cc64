import torch.nn.functional as F


def generator_step(D, fake, opt_G):
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt_G.step()
    return g_loss
