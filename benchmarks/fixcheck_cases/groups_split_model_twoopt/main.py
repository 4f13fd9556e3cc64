# G's parameters split into two groups of one optimizer (no weight decay on
# biases), D with its own optimizer. The D backward frees G's graph; G's
# gradients from it are zeroed before G's step. Correct: D(fake.detach()) in
# the D loss (AD103) or retain_graph=True on the D backward; both match.
import torch
import torch.nn as nn
import torch.nn.functional as F


def split_decay(model, wd):
    decay = [p for n, p in model.named_parameters() if not n.endswith("bias")]
    no_decay = [p for n, p in model.named_parameters() if n.endswith("bias")]
    return [{"params": decay, "weight_decay": wd}, {"params": no_decay, "weight_decay": 0.0}]


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    opt_g = torch.optim.AdamW(split_decay(G, 0.01), lr=1e-3)
    opt_d = torch.optim.AdamW(D.parameters(), lr=1e-3)
    for step in range(6):
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        opt_d.zero_grad()
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.softplus(-D(fake)).mean()
        g_loss.backward()
        opt_g.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
