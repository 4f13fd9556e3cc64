# One optimizer whose groups hold G twice (weights, biases) and D once. Both
# losses' gradients are summed and stepped: G learns from the D loss too.
# Correct: retain_graph=True on the first backward (AD105); D(fake.detach())
# would stop G learning from the D loss: a wrong fix.
import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    groups = [
        {"params": [p for n, p in G.named_parameters() if "weight" in n], "weight_decay": 0.01},
        {"params": [p for n, p in G.named_parameters() if "bias" in n]},
        {"params": D.parameters(), "lr": 4e-4},
    ]
    opt = torch.optim.AdamW(groups, lr=1e-3, weight_decay=0.0)
    for step in range(6):
        real = torch.randn(16, 8)
        opt.zero_grad()
        fake = G(torch.randn(16, 4))
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        d_loss.backward()
        g_loss = F.softplus(-D(fake)).mean()
        g_loss.backward()
        opt.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
