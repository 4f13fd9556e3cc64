# expect-before: runs
# A module-level training history, a dict of lists, handed every epoch to
# `save_history`, which only writes it out; every term is appended as `.item()`:
# nothing with a graph is kept.
import io
import os
import pickle

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def save_history(hist, stream):
    pickle.dump({k: [float(v) for v in vals] for k, vals in hist.items()}, stream)


enc = nn.Sequential(nn.Linear(6, 16), nn.Tanh())
dec = nn.Linear(16, 6)
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-3)

train_hist = {}
train_hist["recon"] = []
train_hist["latent"] = []
train_hist["total"] = []

for epoch in range(2):
    for batch in range(ITERS):
        x = torch.randn(32, 6)
        z = enc(x)
        loss_recon = (dec(z) - x).pow(2).mean()
        loss_latent = z.pow(2).mean() * 0.01
        total = loss_recon + loss_latent
        opt.zero_grad()
        total.backward()
        opt.step()
        train_hist["recon"].append(loss_recon.item())
        train_hist["latent"].append(loss_latent.item())
        train_hist["total"].append(total.item())
    save_history(train_hist, io.BytesIO())

print("total", " ".join(f"{v:.6f}" for v in train_hist["total"]))
print(f"checksum {sum(p.sum().item() for p in enc.parameters()):.6f}")
