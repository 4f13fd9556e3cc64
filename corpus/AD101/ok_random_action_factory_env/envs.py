import random


class ActionSpace:
    def __init__(self, n):
        self.n = n


class LineWorld:
    """A tiny environment: the state is a position on a line."""

    def __init__(self, size):
        self.size = size
        self.action_space = ActionSpace(2)
        self.pos = 0

    def reset(self):
        self.pos = random.randrange(self.size)
        return [float(self.pos), 1.0, 0.0, 0.0]

    def step(self, action):
        self.pos = max(0, min(self.size - 1, self.pos + (1 if action == 1 else -1)))
        done = self.pos == self.size - 1
        return [float(self.pos), 1.0, 0.0, 0.0], float(done), done, {}


def make(name):
    return LineWorld(int(name.split("-")[-1]))
