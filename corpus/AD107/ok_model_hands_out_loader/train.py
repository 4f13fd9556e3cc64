# expect-before: runs
# Node embeddings trained on random walks: the model hands out its own data loader
# (the walks it samples), made once before the loop from settings alone. What the
# loop iterates are batches of node indices, not a graph built from the weights.
import os

import torch

from walkers import SkipGram

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
model = SkipGram(12, 4)
loader = model.loader(batch_size=4, shuffle=True)
optimizer = torch.optim.SGD(list(model.parameters()), lr=0.1)
for epoch in range(ITERS):
    for pos_rw, neg_rw in loader:
        optimizer.zero_grad()
        loss = model.loss(pos_rw, neg_rw)
        loss.backward()
        optimizer.step()
print(f"checksum {model.embedding.weight.sum().item() + ITERS:.6f}")
