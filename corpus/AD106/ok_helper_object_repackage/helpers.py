"""Project helpers chosen by the data type (imported by train.py): only the
text helper has `repackage_hidden`, a static method that detaches a tensor or
each member of a tuple of states, recursively."""
import torch


class BaseHelper:
    def __init__(self, name):
        self.name = name


class ImageHelper(BaseHelper):
    def batches(self, n):
        return [torch.randn(4, 8) for _ in range(n)]


class TextHelper(BaseHelper):
    @staticmethod
    def repackage_hidden(h):
        """Wraps hidden states in new Tensors, to detach them from their history."""
        if isinstance(h, torch.Tensor):
            return h.detach()
        else:
            return tuple(TextHelper.repackage_hidden(v) for v in h)
