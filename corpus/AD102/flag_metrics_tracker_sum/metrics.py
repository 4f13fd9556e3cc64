"""A dict of summed statistics that adds and scales like a number."""
import collections


class Tracker(collections.defaultdict):
    def __init__(self):
        super().__init__(int)

    def __add__(self, other):
        out = Tracker()
        for k in set(self) | set(other):
            out[k] = self[k] + other[k]
        return out

    def __mul__(self, alpha):
        out = Tracker()
        for k, v in self.items():
            out[k] = v * alpha
        return out
