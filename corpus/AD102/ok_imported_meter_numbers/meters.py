"""The project's own logging helpers (imported by train.py)."""


class LossTracker:
    def __init__(self, keys):
        self.sums = {k: 0.0 for k in keys}
        self.steps = 0

    def add(self, losses):
        for key in losses:
            self.sums[key] += float(losses[key])
        self.steps += 1

    def means(self):
        return {k: float(v) / max(self.steps, 1) for k, v in self.sums.items()}
