# expect-before: runs
# An LSTM-style gate written with F.sigmoid / F.tanh; `torch` itself is not
# imported, so the fix adds the import.
from torch import manual_seed, randn
import torch.nn.functional as F

manual_seed(0)
z = randn(3, 4)
c = randn(3, 4)
gate = F.sigmoid(z)
h = gate * F.tanh(c)
print(" ".join("%.6f" % v for v in h.sum(1).tolist()))
