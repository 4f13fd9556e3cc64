"""The project's helpers, taken by train.py with `from utils import *`."""


class MovingAverageMeter:
    def __init__(self, name, momentum=0.9):
        self.name = name
        self.momentum = momentum
        self.val = 0
        self.avg = 0

    def update(self, val):
        self.val = val
        self.avg = self.momentum * self.avg + (1 - self.momentum) * val

    def __str__(self):
        return f"{self.name} {float(self.val):.6f} ({float(self.avg):.6f})"
