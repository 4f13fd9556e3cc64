import numpy as np


class Memory:
    """A ring of the last actions, read back as the next step's input."""

    def __init__(self, capacity, n_assets):
        self.capacity = capacity
        self.items = [np.full(n_assets, 1.0 / n_assets, dtype=np.float32)] * (capacity + 1)
        self.index = 0

    def retrieve(self):
        last = self.items[self.index]
        self.index = 0 if self.index == self.capacity else self.index + 1
        return last

    def add(self, action):
        self.items[self.index] = action
