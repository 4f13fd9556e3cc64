# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A vector quantizer that updates its codebook inside `forward`: it
# backwards the codebook loss on the projected input and steps its own
# optimizer, then returns the straight-through value `x + (q - x).detach()`.
# That backward freed the projection's graph, which the caller's loss walks
# again. Inferred: that the caller backwards a loss built on the output.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Quantizer(nn.Module):
    def __init__(self, dim, size):
        super().__init__()
        self.project_in = nn.Linear(dim, dim)
        self.embed = nn.Parameter(torch.randn(size, dim))
        self.codebook_opt = torch.optim.SGD([self.embed], lr=0.1)

    def forward(self, x):
        x = self.project_in(x)
        idx = torch.cdist(x, self.embed).argmin(-1)
        quantize = self.embed[idx]
        if self.training:
            ((quantize - x) ** 2).mean().backward(retain_graph=True)
            self.codebook_opt.step()
            self.codebook_opt.zero_grad()
            quantize = self.embed[idx]
        return x + (quantize - x).detach()


encoder = nn.Linear(6, 4)
quantizer = Quantizer(4, 8)
decoder = nn.Linear(4, 6)
params = list(encoder.parameters()) + list(quantizer.project_in.parameters()) + list(decoder.parameters())
opt = torch.optim.Adam(params, lr=0.01)
for it in range(ITERS):
    data = torch.randn(16, 6)
    opt.zero_grad()
    recon = decoder(quantizer(encoder(data)))
    loss = (recon - data).pow(2).mean()
    loss.backward()
    opt.step()
    print(f"{it} {loss.item():.6f}")
print("ITERS", ITERS, f"{encoder.weight.sum().item():.6f}")
