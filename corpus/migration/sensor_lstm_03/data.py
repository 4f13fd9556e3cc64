import math

import torch
from torch.autograd import Variable


def make_series(n_steps, n_sensors, seed):
    """Tiny synthetic readings: phase-shifted sines plus noise."""
    g = torch.Generator()
    g.manual_seed(seed)
    t = torch.arange(0, n_steps).float().unsqueeze(1)
    phase = torch.rand(1, n_sensors, generator=g) * 2 * math.pi
    freq = 0.05 + 0.1 * torch.rand(1, n_sensors, generator=g)
    noise = 0.1 * torch.randn(n_steps, n_sensors, generator=g)
    return torch.sin(t * freq + phase) + noise


def normalise(series):
    mean = series.mean(0, keepdim=True)
    std = series.std(0, keepdim=True)
    return (series - mean) / std, mean, std


def batchify(series, bsz):
    # (time, sensors) -> (time // bsz, bsz, sensors): bsz independent streams
    n = series.size(0) // bsz
    series = series[:n * bsz]
    return series.view(bsz, n, -1).transpose(0, 1).contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, source.size(0) - 1 - i)
    x = Variable(source[i:i + seq_len])
    y = Variable(source[i + 1:i + 1 + seq_len])
    return x, y
