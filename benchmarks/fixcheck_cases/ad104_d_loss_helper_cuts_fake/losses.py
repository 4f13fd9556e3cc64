import torch
from torch import nn


def discriminator_loss(netD, real_imgs, fake_imgs, conditions):
    real_logits = netD(real_imgs, conditions)
    fake_logits = netD(fake_imgs.detach(), conditions)
    real_err = nn.BCELoss()(real_logits, torch.ones_like(real_logits))
    fake_err = nn.BCELoss()(fake_logits, torch.zeros_like(fake_logits))
    return real_err + fake_err


def generator_loss(netsD, fake_imgs, conditions):
    total = 0
    for netD, fake in zip(netsD, fake_imgs):
        logits = netD(fake, conditions)
        total = total + nn.BCELoss()(logits, torch.ones_like(logits))
    return total
