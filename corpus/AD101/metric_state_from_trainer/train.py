# expect-before: grows
# autodetach-test: unsafe
# Metric classes whose callers live in another file (loop.py): `Precision.__call__`
# rounds its binary predictions (which keeps their graph: `round()` has a zero
# gradient, not none) and folds them into `self.true_positives` and
# `self.all_positives`. loop.py's trainer, whose `metric` is annotated with the
# base class `Metric`, calls it every batch with `torch.sigmoid(out)`, the output
# whose loss it backwards, so the counters chain every batch's metric graph until
# `reset()`. The multi-class arm cuts (an index into `torch.eye`); the binary arm
# runs here. The finding is at the stores, where one `.detach()` serves every
# caller; that the trainer's object is a `Precision` and what it passes are
# inferred from another file, so the fix is unsafe.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Metric:
    def reset(self):
        raise NotImplementedError

    def __call__(self, y_pred, y_true):
        raise NotImplementedError


class Precision(Metric):
    def __init__(self):
        self.true_positives = 0
        self.all_positives = 0

    def reset(self):
        self.true_positives = 0
        self.all_positives = 0

    def __call__(self, y_pred, y_true):
        num_class = y_pred.size(1)
        if num_class == 1:
            y_pred = y_pred.round()
        else:
            y_true = torch.eye(num_class)[y_true.squeeze().long()]
            y_pred = torch.eye(num_class)[y_pred.argmax(1)]
        self.true_positives += (y_true * y_pred).sum(dim=0)
        self.all_positives += y_pred.sum(dim=0)
        return float((self.true_positives / (self.all_positives + 1e-20)).mean())


if __name__ == "__main__":
    from loop import run

    torch.manual_seed(0)
    run(ITERS, Precision())
