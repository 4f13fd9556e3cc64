# VAE-GAN with one optimizer over encoder + decoder (itertools.chain) and one
# over the discriminator, run from a train_epoch function. The encoder and
# decoder are stepped with the VAE loss only, after zeroing: what the D loss
# put into them is thrown away. Correct: D(recon.detach()) in the D loss
# (AD103) or retain_graph=True on the D backward; both match the reference.
import itertools

import torch
import torch.nn.functional as F

from losses import gan_loss, kl_divergence
from nets import Encoder, critic, decoder, reparameterize


def train_epoch(enc, dec, D, opt_vae, opt_d, batches):
    for x in batches:
        mu, logvar = enc(x)
        recon = dec(reparameterize(mu, logvar))
        d_loss = gan_loss(D(x), True) + gan_loss(D(recon), False)
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        vae_loss = kl_divergence(mu, logvar) + F.mse_loss(recon, x) + 0.1 * gan_loss(D(recon), True)
        opt_vae.zero_grad()
        vae_loss.backward()
        opt_vae.step()
    return d_loss.item(), vae_loss.item()


def main():
    torch.manual_seed(0)
    enc, dec, D = Encoder(), decoder(), critic()
    opt_vae = torch.optim.Adam(itertools.chain(enc.parameters(), dec.parameters()), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    print(train_epoch(enc, dec, D, opt_vae, opt_d, [torch.randn(16, 8) for _ in range(6)]))


if __name__ == "__main__":
    main()
