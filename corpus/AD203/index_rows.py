# expect-before: runs
# Real indexing through .data: the first row of an output, not a scalar.
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)
out = layer(torch.randn(4, 3))
first = out.data[0]
col = out.sum(0)
print([round(v, 6) for v in first.tolist()], round(col.data[0].item(), 6))
