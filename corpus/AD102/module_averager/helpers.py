"""The project's averager (imported by train.py); it sums what it is given."""


class averager(object):
    def __init__(self):
        self.reset()

    def add(self, v):
        self.n_count += v.numel()
        self.sum += v.sum()

    def reset(self):
        self.n_count = 0
        self.sum = 0

    def val(self):
        return self.sum / float(self.n_count) if self.n_count else 0
