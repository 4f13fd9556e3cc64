"""The project's running average (imported by train.py): each `add` folds its
argument into `self.v` as a mean written out, `(v * n + x) / (n + 1)`."""


class Averager():

    def __init__(self):
        self.n = 0
        self.v = 0

    def add(self, x):
        self.v = (self.v * self.n + x) / (self.n + 1)
        self.n += 1

    def item(self):
        return self.v
