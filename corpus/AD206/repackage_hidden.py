# expect-before: error iteration over a 0-d tensor
# The 0.3 word-language-model helper: `type(h) == Variable` is always false on
# PyTorch >= 0.4, so the helper iterates into the tensor itself and fails.
import torch
import torch.nn as nn
from torch.autograd import Variable


def repackage_hidden(h):
    """Wraps hidden states in new Variables, to detach them from their history."""
    if type(h) == Variable:
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


torch.manual_seed(0)
lstm = nn.LSTM(3, 4)
head = nn.Linear(4, 1)
opt = torch.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.1)
hidden = (torch.zeros(1, 2, 4), torch.zeros(1, 2, 4))
for step in range(4):
    x = torch.randn(5, 2, 3)
    hidden = repackage_hidden(hidden)
    out, hidden = lstm(x, hidden)
    loss = head(out).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{step} {loss.item():.6f}")
