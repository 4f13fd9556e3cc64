# expect-before: runs
# A distance in the project's losses.py trains its projection net for a few
# steps on samples the caller hands in, backwarding with retain_graph=True.
# The caller passes the decoder's output, not detached: every inner backward
# runs through the decoder's graph again (and the caller's final loss does
# too), so the retain is needed. The callers in the project show it.
import os

import torch
import torch.nn as nn

from losses import projected_distance

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 6))

    def compute_loss(self, data, tnet, op_tnet):
        z_prior = torch.randn(data.shape[0], 2)
        data_fake = self.decoder(z_prior)
        return projected_distance(data, data_fake, tnet, op_tnet)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = AutoEncoder()
    tnet = nn.Linear(6, 6)
    op_tnet = torch.optim.SGD(tnet.parameters(), lr=0.01)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(ITERS):
        loss = model.compute_loss(torch.randn(8, 6), tnet, op_tnet)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{step} loss {loss.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
