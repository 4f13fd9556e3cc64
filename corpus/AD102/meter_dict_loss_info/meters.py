"""The project's meters (imported by train.py)."""


class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.sq_sum = 0.0
        self.count = 0
        self.avg = 0.0

    def update(self, val, n=1):
        self.sum += val * n
        self.sq_sum += val ** 2 * n
        self.count += n
        self.avg = self.sum / self.count
