# The loss of flag_loss_fn_steps_discriminator/train.py (not a case itself).
import torch
import torch.nn.functional as F


def permute_dims(z):
    return torch.stack([col[torch.randperm(z.size(0))] for col in z.t()], 1)


def factorvae_loss_fn(w_tc, PermD, optim_PermD, ones, zeros, **kwargs):
    """FactorVAE's total-correlation term, with the discriminator's own update."""
    z = kwargs["z"]
    dz_true = PermD(z)
    vae_tc_loss = (dz_true[:, 0] - dz_true[:, 1]).mean() * w_tc
    dz_perm = PermD(permute_dims(z).detach())
    discriminator_tc_loss = (F.cross_entropy(dz_true, zeros) + F.cross_entropy(dz_perm, ones)) * 0.5
    optim_PermD.zero_grad()
    discriminator_tc_loss.backward(retain_graph=True)
    optim_PermD.step()
    return vae_tc_loss, discriminator_tc_loss
