import torch.nn.functional as F


def gan_losses(d_real, d_fake):
    real = F.binary_cross_entropy_with_logits(d_real, d_real.new_ones(d_real.shape))
    fake = F.binary_cross_entropy_with_logits(d_fake, d_fake.new_zeros(d_fake.shape))
    return real + fake, real, fake


def gen_loss(d_fake):
    return F.binary_cross_entropy_with_logits(d_fake, d_fake.new_ones(d_fake.shape))
