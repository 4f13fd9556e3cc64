# expect-before: runs
# No `import torch` in this file (only submodules imported by alias): the fix
# adds one so that `torch.Tensor` resolves.
import torch.nn as nn
from torch.autograd import Variable


def count_tensors(obj):
    if type(obj) is not Variable and isinstance(obj, (list, tuple)):
        return sum(count_tensors(o) for o in obj)
    return 1 if type(obj) is Variable else 0


layer = nn.Linear(2, 2)
print(count_tensors([1, 2, (3, "x")]))
