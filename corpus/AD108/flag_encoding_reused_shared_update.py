# expect-before: error modified by an inplace operation
# A trainer steps every loss through one helper, `_update` (backward with
# retain_graph=True, then the encoder's step), which `supervised` and
# `enforce_encoding` both call. `align` encodes one sample once, before its
# loop, and hands that encoding to `enforce_encoding` for each equivalent
# sample: the second call backwards it through encoder weights the first
# step changed in place. The helper's backward is reported, and so is the
# call in the loop that hands it the stale encoding (the helper's line alone
# does not say which caller is wrong). Reported without a fix: the encoding
# must be recomputed in each call, or the losses summed and stepped once.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class EncoderDecoder:
    def __init__(self, dim=8):
        self.encoder = nn.Sequential(nn.Linear(dim, 16), nn.Tanh(), nn.Linear(16, dim))
        self.decoder = nn.Linear(dim, dim)
        self.encoder_optim = torch.optim.Adam(self.encoder.parameters(), lr=1e-3)
        self.decoder_optim = torch.optim.Adam(self.decoder.parameters(), lr=1e-3)

    def _update(self, loss):
        self.encoder_optim.zero_grad()
        self.decoder_optim.zero_grad()
        loss.backward(retain_graph=True)
        self.encoder_optim.step()
        self.decoder_optim.step()

    def encode(self, x):
        return self.encoder(x)

    def supervised(self, x, y):
        loss = (self.decoder(self.encode(x)) - y).pow(2).mean()
        self._update(loss)
        return loss.item()

    def enforce_encoding(self, sample, encoded=None, positive=True):
        reference = self.encode(sample) if encoded is None else encoded
        loss = (reference - self.encode(sample + 0.1)).pow(2).mean()
        self._update(loss if positive else -loss)
        return loss.item()

    def align(self, sample, equivalents):
        encoded = self.encode(sample)
        losses = []
        for other in equivalents:
            losses.append(self.enforce_encoding(other, encoded=encoded))
        return losses


if __name__ == "__main__":
    torch.manual_seed(0)
    model = EncoderDecoder()
    first = model.supervised(torch.randn(4, 8), torch.randn(4, 8))
    losses = model.align(torch.randn(4, 8), [torch.randn(4, 8) for _ in range(ITERS)])
    print(f"{first:.6f} " + " ".join(f"{v:.6f}" for v in losses))
    print(f"checksum {sum(p.sum().item() for p in model.encoder.parameters()):.6f}")
