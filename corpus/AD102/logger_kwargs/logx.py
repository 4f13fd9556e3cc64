"""The project's epoch logger (imported by train.py): `store(**values)` keeps
every value it is given until the epoch's summary."""


class EpochLogger:
    def __init__(self):
        self.epoch_dict = {}

    def store(self, **kwargs):
        for k, v in kwargs.items():
            if k not in self.epoch_dict:
                self.epoch_dict[k] = []
            self.epoch_dict[k].append(v)

    def mean(self, key):
        vals = self.epoch_dict.pop(key, [])
        return sum(float(v) for v in vals) / max(len(vals), 1)
