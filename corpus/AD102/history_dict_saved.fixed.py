# expect-before: runs
# autodetach-test: unsafe
# A module-level training history: a dict of lists, one per logged term. Two
# terms of the backwarded sum are appended as tensors, so every batch keeps its
# loss terms and the graph nodes behind them for the whole run. The dict is
# handed to `save_history` (a function of this file that only writes it out),
# which starts no list again. The dict outlives the loop: that nothing else
# reads its lists as tensors with a graph is inferred, so `.detach()` is unsafe.
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
        train_hist["recon"].append(loss_recon.detach())
        train_hist["latent"].append(loss_latent.detach())
        train_hist["total"].append(total.item())
    save_history(train_hist, io.BytesIO())

print("total", " ".join(f"{v:.6f}" for v in train_hist["total"]))
print(f"checksum {sum(p.sum().item() for p in enc.parameters()):.6f}")
