# expect-before: runs
# A training function handed its modules and an activation callable. Its
# validation pass runs with gradients on and adds each batch's loss into
# `val_loss`, so every validation graph is kept until the epoch's mean is
# printed. `act_fn(...)` is code the analysis cannot see (it may cut), but
# its output goes through `head`, a module the optimizer steps and the
# training backward walks: whatever `act_fn` returns, `head(feats)` carries
# the head's graph.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(encoder, head, act_fn, train_set, valid_set, epochs):
    opt = torch.optim.Adam(list(encoder.parameters()) + list(head.parameters()), lr=0.01)
    for epoch in range(epochs):
        for x, y in train_set:
            feats = act_fn(encoder(x))
            err = nn.functional.mse_loss(head(feats), y)
            opt.zero_grad()
            err.backward()
            opt.step()
        val_loss = 0.0
        for x, y in valid_set:
            feats = act_fn(encoder(x))
            pred = head(feats)
            val_loss = (val_loss + nn.functional.mse_loss(pred, y)).detach()
        print("epoch %d valid %.6f" % (epoch, val_loss / len(valid_set)))


train_set = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(ITERS)]
valid_set = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(ITERS)]
head = nn.Linear(8, 1)
train(nn.Linear(4, 8), head, torch.tanh, train_set, valid_set, 2)
print("checksum %.6f" % sum(p.sum().item() for p in head.parameters()))
