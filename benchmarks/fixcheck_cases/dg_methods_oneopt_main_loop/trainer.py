import torch.nn.functional as F


class GANSteps:
    """Loss methods only: the caller owns the optimizer and its steps."""

    def __init__(self, G, D):
        self.G, self.D = G, D

    def d_step(self, real, fake):
        loss = F.softplus(self.D(fake)).mean() + F.softplus(-self.D(real)).mean()
        loss.backward()
        return loss.item()

    def g_step(self, fake):
        loss = F.softplus(-self.D(fake)).mean()
        loss.backward()
        return loss.item()
