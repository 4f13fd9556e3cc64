"""The project's loss tracker (imported by train.py): one running mean per name."""
from collections import OrderedDict

import torch


class RunningMean:
    def __init__(self):
        self.mean = 0.0
        self.n = 0

    def __iadd__(self, value):
        self.mean = (value + self.mean * self.n) / (self.n + 1)
        self.n += 1
        return self


class RunningMeanTorch:
    def __init__(self):
        self.values = []

    def __iadd__(self, value):
        self.values.append(value.unsqueeze(0))
        return self

    def average(self):
        return torch.cat(self.values).mean() if self.values else 0.0


class LossTracker:
    def __init__(self):
        self.tracks = OrderedDict()

    def update(self, d):
        for k, v in d.items():
            if k not in self.tracks:
                self.add(k)
            self.tracks[k] += v

    def add(self, name, pytorch=True):
        track = RunningMeanTorch() if pytorch else RunningMean()
        self.tracks[name] = track
        return track

    def means(self):
        return {k: (t.average() if isinstance(t, RunningMeanTorch) else t.mean) for k, t in self.tracks.items()}
