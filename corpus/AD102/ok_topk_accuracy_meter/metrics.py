"""The project's meters and accuracy helpers (imported by train.py)."""
import torch


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def accuracy(output, target):
    # the indices of topk and the comparison hold no graph
    batch_size = target.size(0)
    _, pred = output.topk(1, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    correct = correct[:1].view(-1).float().sum(0, keepdim=True)
    return correct.mul_(100.0 / batch_size)


def hits(output, target):
    _, idx = torch.max(output, 1)
    return (idx == target).float().mean()


def ranked_hits(output, target):
    vals, order = output.sort(1, descending=True)
    return order[:, 0].eq(target).sum().float()
