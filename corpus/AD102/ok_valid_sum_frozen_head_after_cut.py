# expect-before: runs
# Only the encoder is trained; the head is frozen and its input comes through
# `cut_fn`, a callable the analysis cannot see (here it detaches). The head's
# parameters need no gradient and the optimizer does not hold them, so nothing
# proves that `head(feats)` carries a graph: the validation sum is left alone.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(encoder, head, cut_fn, train_set, valid_set, epochs):
    opt = torch.optim.Adam(encoder.parameters(), lr=0.01)
    for epoch in range(epochs):
        for x, y in train_set:
            err = nn.functional.mse_loss(encoder(x), y)
            opt.zero_grad()
            err.backward()
            opt.step()
        val_loss = 0.0
        for x, y in valid_set:
            feats = cut_fn(encoder(x))
            pred = head(feats)
            val_loss = val_loss + nn.functional.mse_loss(pred, y[:, :1])
        print("epoch %d valid %.6f" % (epoch, val_loss / len(valid_set)))


train_set = [(torch.randn(6, 4), torch.randn(6, 8)) for _ in range(ITERS)]
valid_set = [(torch.randn(6, 4), torch.randn(6, 8)) for _ in range(ITERS)]
head = nn.Linear(8, 1).requires_grad_(False)
encoder = nn.Linear(4, 8)
train(encoder, head, lambda t: t.detach(), train_set, valid_set, 2)
print("checksum %.6f" % sum(p.sum().item() for p in encoder.parameters()))
