"""Adversarial losses built by a factory, as pix2pix-style projects do."""
import torch
from torch import nn


class DiscLoss:
    def __init__(self):
        self.criterion = nn.BCEWithLogitsLoss()

    def get_g_loss(self, net, fake):
        pred = net(fake)
        return self.criterion(pred, torch.ones_like(pred))

    def get_loss(self, net, fake, real):
        # no detach: backward_D walks into the generator's graph too
        pred_fake = net(fake)
        pred_real = net(real)
        self.loss_D = (self.criterion(pred_fake, torch.zeros_like(pred_fake)) +
                       self.criterion(pred_real, torch.ones_like(pred_real))) * 0.5
        return self.loss_D


class DiscLossLS(DiscLoss):
    def __init__(self):
        super().__init__()
        self.criterion = nn.MSELoss()

    def get_loss(self, net, fake, real):
        return DiscLoss.get_loss(self, net, fake, real)


def init_loss(kind):
    return DiscLossLS() if kind == "lsgan" else DiscLoss()
