"""Segmentation metrics: each thresholds the output and returns a Python float."""
import torch


def get_accuracy(out, target, threshold=0.5):
    pred = out > threshold
    corr = torch.sum(pred == target.bool())
    return float(corr) / float(pred.numel())


def get_recall(out, target, threshold=0.5):
    pred = out > threshold
    tp = torch.sum(pred & target.bool())
    fn = torch.sum(~pred & target.bool())
    return float(tp) / (float(tp + fn) + 1e-6)


def get_precision(out, target, threshold=0.5):
    pred = out > threshold
    tp = torch.sum(pred & target.bool())
    fp = torch.sum(pred & ~target.bool())
    return float(tp) / (float(tp + fp) + 1e-6)


def get_f1(out, target, threshold=0.5):
    # built from the other helpers: floats too
    rec = get_recall(out, target, threshold=threshold)
    prec = get_precision(out, target, threshold=threshold)
    return 2 * rec * prec / (rec + prec + 1e-6)
