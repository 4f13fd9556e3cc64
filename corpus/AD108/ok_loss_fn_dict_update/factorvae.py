# The loss of ok_loss_fn_dict_update/train.py (not a case itself).
import torch
import torch.nn.functional as F


def shuffle_latents(z):
    return torch.stack([col[torch.randperm(z.size(0))] for col in z.t()], 1)


def tc_loss_fn(weight, disc, disc_opt, ones, zeros, **kwargs):
    """The total-correlation term for the VAE; trains the discriminator too."""
    z = kwargs["z"]
    scores = disc(z)
    vae_term = (scores[:, 0] - scores[:, 1]).mean() * weight
    shuffled = disc(shuffle_latents(z).detach())
    disc_loss = (F.cross_entropy(scores, zeros) + F.cross_entropy(shuffled, ones)) * 0.5
    disc_opt.zero_grad()
    disc_loss.backward(retain_graph=True)
    disc_opt.step()
    scores = disc(z)  # again, with the updated discriminator
    vae_term = (scores[:, 0] - scores[:, 1]).mean() * weight
    return vae_term, disc_loss
