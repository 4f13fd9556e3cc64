"""Loss helpers of a conditional GAN; the discriminator's cuts its inputs itself."""
import torch
import torch.nn as nn


def d_loss(net_d, real, fake, cond, ones, zeros):
    criterion = nn.BCELoss()
    cond = cond.detach()
    fake = fake.detach()
    real_logits = net_d(torch.cat([real, cond], 1))
    wrong_logits = net_d(torch.cat([real[:-1], cond[1:]], 1))
    fake_logits = net_d(torch.cat([fake, cond], 1))
    err_real = criterion(real_logits, ones)
    err_wrong = criterion(wrong_logits, zeros[1:])
    err_fake = criterion(fake_logits, zeros)
    err = err_real + (err_fake + err_wrong) * 0.5
    return err, err_real.item(), err_wrong.item(), err_fake.item()


def g_loss(net_d, fake, ones, cond):
    criterion = nn.BCELoss()
    cond = cond.detach()
    return criterion(net_d(torch.cat([fake, cond], 1)), ones)


def kl_loss(mu, logvar):
    return torch.mean(-0.5 * (1 + logvar - mu.pow(2) - logvar.exp()))
