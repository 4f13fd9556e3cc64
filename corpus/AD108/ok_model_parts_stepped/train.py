# expect-before: runs
# The VAE-GAN trained part by part, correctly: after the encoder's step the
# model runs forward again, so the decoder's loss is built on the new weights.
import os

import torch

from vaegan import VaeGan

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
net = VaeGan()
optimizer_encoder = torch.optim.RMSprop(params=net.encoder.parameters(), lr=1e-3)
optimizer_decoder = torch.optim.RMSprop(params=net.decoder.parameters(), lr=1e-3)
for i in range(ITERS):
    x = torch.randn(8, 8)
    x_tilde, scores = net(x)
    loss_encoder = (x_tilde - x).pow(2).mean()
    net.zero_grad()
    loss_encoder.backward()
    optimizer_encoder.step()
    net.zero_grad()
    x_tilde, scores = net(x)
    loss_decoder = (x_tilde - x).pow(2).mean() - 0.1 * scores[8:].mean()
    loss_decoder.backward()
    optimizer_decoder.step()
    print(f"{i} enc {loss_encoder.item():.6f} dec {loss_decoder.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
