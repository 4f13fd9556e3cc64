"""Wasserstein losses as objects that hold the critic they score with."""
import torch


class CriticLoss:
    def __init__(self, critic):
        self.critic = critic

    def dis_loss(self, real, fake):
        raise NotImplementedError

    def gen_loss(self, fake):
        raise NotImplementedError


class WassersteinLoss(CriticLoss):
    def __init__(self, critic, drift=0.001):
        super().__init__(critic)
        self.drift = drift

    def dis_loss(self, real, fake):
        real_out = self.critic(real)
        fake_out = self.critic(fake)
        return fake_out.mean() - real_out.mean() + self.drift * (real_out ** 2).mean()

    def gen_loss(self, fake):
        return -self.critic(fake).mean()
