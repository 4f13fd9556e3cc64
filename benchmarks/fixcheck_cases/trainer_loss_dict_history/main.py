# A trainer returns its losses in a dict; the loop sums them for backward and
# appends the dict to a history list (tensors with graphs: a leak, no
# crash). The fix is to log floats; the parameter updates are unchanged.
import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 8)
        self.dec = nn.Linear(4, 8)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


def compute_losses(model, x):
    rec, mu, logvar = model(x)
    return {"rec": F.mse_loss(rec, x), "kl": -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())}


def main():
    torch.manual_seed(0)
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    history = []
    for step in range(6):
        losses = compute_losses(model, torch.randn(32, 8))
        loss = losses["rec"] + losses["kl"]
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(losses)
    print(len(history))


if __name__ == "__main__":
    main()
