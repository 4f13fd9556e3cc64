# expect-before: runs
# The modern helper: nothing for AD206.
import torch


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


h = (torch.ones(1, 2, requires_grad=True) * 2, torch.zeros(1, 2))
print([t.requires_grad for t in repackage_hidden(h)])
