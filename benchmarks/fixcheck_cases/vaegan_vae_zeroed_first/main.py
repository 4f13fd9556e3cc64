# VAE-GAN (as vaegan_two_opts) but the VAE optimizer is zeroed at the TOP of
# the iteration, before the D backward: what the D loss puts into the encoder
# and decoder through recon stays and is stepped with the VAE loss's
# gradients. D(recon.detach()) would change the VAE's updates. Correct:
# retain_graph=True on the D backward.
import itertools

import torch
import torch.nn.functional as F

from losses import gan_loss, kl_divergence
from nets import Encoder, critic, decoder, reparameterize


def train_epoch(enc, dec, D, opt_vae, opt_d, batches):
    for x in batches:
        opt_vae.zero_grad()
        mu, logvar = enc(x)
        recon = dec(reparameterize(mu, logvar))
        d_loss = gan_loss(D(x), True) + gan_loss(D(recon), False)
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        vae_loss = kl_divergence(mu, logvar) + F.mse_loss(recon, x) + 0.1 * gan_loss(D(recon), True)
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
