# expect-before: runs
# `isinstance(x, Variable)` still works today (a compatibility hook), but names
# a deprecated class; the file imports torch as `th`, so the fix uses `th.Tensor`.
import torch as th
from torch.autograd import Variable


def to_cpu(obj):
    if isinstance(obj, Variable):
        return obj.cpu()
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_cpu(o) for o in obj)
    return obj


th.manual_seed(0)
batch = [th.randn(2), (th.ones(3), "label"), 7]
moved = to_cpu(batch)
print(moved[0].tolist(), moved[1][0].tolist(), moved[1][1], moved[2])
