"""The project's running averages (imported by train.py): the average is
written out in full, `avg = avg * n + value`, not with `+=`."""


class KeepAverage:
    def __init__(self):
        self.avg_values = {}
        self.iters = {}

    def add_value(self, name, init_val=0.0):
        self.avg_values[name] = init_val
        self.iters[name] = 0

    def update_value(self, name, value, weighted=False):
        if weighted:
            self.avg_values[name] = 0.99 * self.avg_values[name] + 0.01 * value
        else:
            self.avg_values[name] = self.avg_values[name] * self.iters[name] + value
            self.iters[name] += 1
            self.avg_values[name] /= self.iters[name]

    def __getitem__(self, name):
        return self.avg_values[name]
