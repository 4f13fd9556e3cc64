# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# Truncated BPTT "fixed" with retain_graph=True: the GRU state is carried
# from batch to batch, so every backward walks all earlier batches again,
# through weights that optimizer.step() has since changed in place. Whether
# the author wanted backprop through the whole stream is inferred (it cannot
# work here), so the fix that cuts the state per batch is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
gru = nn.GRU(3, 8)
head = nn.Linear(8, 1)
opt = torch.optim.SGD([*gru.parameters(), *head.parameters()], lr=0.1)
h = torch.zeros(1, 2, 8)
for i in range(ITERS):
    x, y = torch.randn(5, 2, 3), torch.randn(2, 1)
    out, h = gru(x, h)
    loss = torch.mean((head(out[-1]) - y) ** 2)
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
    print(f"{i} loss {loss.item():.6f}")
