# VAE-GAN with three networks and three optimizers and three losses (KL,
# reconstruction, adversarial). The discriminator step backwards through the
# reconstruction, freeing the encoder/decoder graph; their gradients from it
# are zeroed before their own step. Correct: D(recon.detach()) in the D loss
# (AD103) or retain_graph=True on the D backward; both match the reference.
import torch
import torch.nn.functional as F

from losses import gan_loss, kl_divergence
from nets import Encoder, critic, decoder, reparameterize


def main():
    torch.manual_seed(0)
    enc, dec, D = Encoder(), decoder(), critic()
    opt_enc = torch.optim.Adam(enc.parameters(), lr=1e-3)
    opt_dec = torch.optim.Adam(dec.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    for step in range(6):
        x = torch.randn(16, 8)
        mu, logvar = enc(x)
        recon = dec(reparameterize(mu, logvar))
        opt_d.zero_grad()
        d_loss = gan_loss(D(x), True) + gan_loss(D(recon), False)
        d_loss.backward()
        opt_d.step()
        opt_enc.zero_grad()
        opt_dec.zero_grad()
        vae_loss = kl_divergence(mu, logvar) + F.mse_loss(recon, x) + 0.1 * gan_loss(D(recon), True)
        vae_loss.backward()
        opt_enc.step()
        opt_dec.step()
    print(d_loss.item(), vae_loss.item())


if __name__ == "__main__":
    main()
