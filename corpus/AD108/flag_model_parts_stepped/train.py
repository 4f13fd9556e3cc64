# expect-before: error modified by an inplace operation
# A VAE-GAN trained part by part: one forward of the whole model feeds three
# losses, and the encoder's step comes between their backward passes, so the
# decoder's backward walks the encoder weights saved before that step.
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
    loss_decoder = (x_tilde - x).pow(2).mean() - 0.1 * scores[8:].mean()
    net.zero_grad()
    loss_encoder.backward(retain_graph=True)
    optimizer_encoder.step()
    net.zero_grad()
    loss_decoder.backward()
    optimizer_decoder.step()
    print(f"{i} enc {loss_encoder.item():.6f} dec {loss_decoder.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
