import torch


class SequenceHelper:
    def __init__(self, batch_size):
        self.batch_size = batch_size

    @staticmethod
    def repackage_hidden(h):
        """New tensors for the recurrent state, cut from their history."""
        if isinstance(h, torch.Tensor):
            return h.detach()
        return tuple(SequenceHelper.repackage_hidden(v) for v in h)

    def batches(self, data, n):
        for start in range(0, n * self.batch_size, self.batch_size):
            yield data[start:start + self.batch_size]
