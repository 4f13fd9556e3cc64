"""Generator losses as loss objects, the way progressive-GAN projects build them."""
import torch


class WassersteinLoss:
    def __init__(self, dis):
        self.dis = dis

    def gen_loss(self, fake, labels):
        return -torch.mean(self.dis(fake, labels))


class HingeLoss(WassersteinLoss):
    def gen_loss(self, fake, labels):
        return torch.relu(1.0 - self.dis(fake, labels)).mean()
