# expect-before: runs
# Metric classes whose caller lives in another file (loop.py): `Precision.__call__`
# folds its (rounded) predictions into `self` state, which would keep their graph,
# but loop.py's trainer calls the metric under `torch.no_grad()` after the step:
# the predictions it hands over carry no graph, and nothing grows.
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
