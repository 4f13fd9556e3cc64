"""The project's trainer: it backwards the loss an actor returns and averages the
actor's status dict, entry by entry, in meters kept for the whole epoch."""
from meters import RunningAverage


class Trainer:
    def __init__(self, actor, optimizer):
        self.actor = actor
        self.optimizer = optimizer
        self.meters = {}

    def train_epoch(self, loader):
        self.meters = {}
        for batch in loader:
            loss, status = self.actor(batch)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self._record(status, len(batch[0]))
        return {k: float(m.avg) for k, m in self.meters.items()}

    def _record(self, status, n):
        for name, value in status.items():
            if name not in self.meters:
                self.meters[name] = RunningAverage()
            self.meters[name].update(value, n)
