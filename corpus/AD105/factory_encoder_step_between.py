# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# The encoder comes from a factory function, so the analysis cannot see
# which layer it is; an auxiliary optimizer steps it between the two
# backward calls. retain_graph=True is offered as an unsafe fix: it works
# only if the encoder's graph saved no weight that the step changes (true
# here: a single nn.Linear on raw data), which --verify confirms.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def make_encoder(width):
    return nn.Linear(10, width)


torch.manual_seed(0)
encoder = make_encoder(12)
decoder = nn.Sequential(nn.Linear(12, 24), nn.Tanh(), nn.Linear(24, 10))
opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=1e-3)
enc_opt = torch.optim.SGD(encoder.parameters(), lr=0.01)

for it in range(ITERS):
    x = torch.randn(16, 10)
    code = encoder(x)
    recon = decoder(code)
    sparsity = code.abs().mean()
    recon_loss = F.mse_loss(recon, x)
    opt.zero_grad()
    sparsity.backward()
    enc_opt.step()
    recon_loss.backward()
    opt.step()
    print(f"{it} sparsity {sparsity.item():.6f} recon {recon_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in encoder.parameters()):.6f} "
      f"{sum(p.sum().item() for p in decoder.parameters()):.6f}")
