# expect-before: error masked_fill_ only supports boolean masks
# Padding mask for attention scores as in 2018 seq2seq code: the mask is a
# ByteTensor made with .byte(), and masked_fill rejects it today.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
lengths = torch.tensor([5, 3, 2])
attn = torch.nn.Linear(6, 6)
for it in range(ITERS):
    q = torch.randn(3, 5, 6)
    scores = attn(q).bmm(q.transpose(1, 2))
    pad = (torch.arange(5).unsqueeze(0) >= lengths.unsqueeze(1)).byte()
    scores = scores.masked_fill(pad.unsqueeze(1), -1e9)
    weights = scores.softmax(-1)
    print("%.6f" % weights[:, :, :2].sum().item())
