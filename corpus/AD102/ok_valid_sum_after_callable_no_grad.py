# expect-before: runs
# valid_sum_after_callable, written correctly: the validation pass runs
# under torch.no_grad(), so its sum of losses holds no graph.
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
        with torch.no_grad():
            for x, y in valid_set:
                feats = act_fn(encoder(x))
                pred = head(feats)
                val_loss = val_loss + nn.functional.mse_loss(pred, y)
        print("epoch %d valid %.6f" % (epoch, val_loss / len(valid_set)))


train_set = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(ITERS)]
valid_set = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(ITERS)]
head = nn.Linear(8, 1)
train(nn.Linear(4, 8), head, torch.tanh, train_set, valid_set, 2)
print("checksum %.6f" % sum(p.sum().item() for p in head.parameters()))
