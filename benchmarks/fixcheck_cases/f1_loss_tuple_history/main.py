import torch
import torch.nn as nn

from losses import vae_loss


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 2 * 3)
        self.dec = nn.Linear(3, 8)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


def main():
    torch.manual_seed(0)
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    rec_hist, kl_hist = [], []
    for step in range(8):
        x = torch.randn(16, 8)
        recon, mu, logvar = model(x)
        loss, rec, kl = vae_loss(recon, x, mu, logvar)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec_hist.append(rec)
        kl_hist.append(kl)
    print("rec", torch.stack(rec_hist).mean().item(), "kl", torch.stack(kl_hist)[-3:].tolist())


if __name__ == "__main__":
    main()
