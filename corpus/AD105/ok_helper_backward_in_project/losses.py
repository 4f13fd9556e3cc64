"""A diversity penalty that runs its own backward, as some GAN losses do."""


def diversity_loss(phi_real, phi_fake, backward=True):
    loss = (phi_real.mean(0) - phi_fake.mean(0)).pow(2).sum()
    if backward:
        loss.backward()
    return loss.item()
