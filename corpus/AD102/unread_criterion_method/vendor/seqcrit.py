import torch


class SeqCriterion:
    """Sums per-step losses; `result()` hands back their root, a tensor with a graph."""

    def __init__(self):
        self.acc = 0

    def reset(self):
        self.acc = 0

    def eval_batch(self, out, y):
        self.acc = self.acc + torch.nn.functional.mse_loss(out, y)

    def backward(self):
        self.acc.backward()

    def result(self):
        return self.acc.sqrt()
