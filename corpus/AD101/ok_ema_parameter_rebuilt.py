# expect-before: runs
# A vector quantizer updates its codebook by an exponential moving average
# inside forward and stores it as `nn.Parameter(...)` of the new value: a
# Parameter built from a tensor is a new leaf, so no graph of this call is
# kept for the next one.
import os

import torch
from torch import nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class VectorQuantizerEMA(nn.Module):
    def __init__(self, num_embeddings, dim, decay=0.9):
        super().__init__()
        self._embedding = nn.Embedding(num_embeddings, dim)
        self._ema_w = nn.Parameter(torch.randn(num_embeddings, dim))
        self._decay = decay

    def forward(self, inputs):
        distances = torch.cdist(inputs, self._embedding.weight)
        encodings = F.one_hot(distances.argmin(1), self._embedding.num_embeddings).float()
        quantized = encodings @ self._embedding.weight
        if self.training:
            dw = encodings.t() @ inputs
            self._ema_w = nn.Parameter(self._ema_w * self._decay + (1 - self._decay) * dw)
            counts = encodings.sum(0).unsqueeze(1) + 1.0
            self._embedding.weight = nn.Parameter(self._ema_w / counts)
        loss = F.mse_loss(quantized.detach(), inputs)
        return loss, inputs + (quantized - inputs).detach()


encoder = nn.Linear(6, 3)
decoder = nn.Linear(3, 6)
vq = VectorQuantizerEMA(5, 3)
optimizer = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=1e-2)
for it in range(ITERS):
    x = torch.randn(16, 6)
    commit, z = vq(encoder(x))
    loss = F.mse_loss(decoder(z), x) + 0.25 * commit
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in decoder.parameters()):.6f}")
