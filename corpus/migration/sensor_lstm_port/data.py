import math

import torch


def make_series(n_steps, n_sensors, seed):
    """Tiny synthetic readings: phase-shifted sines plus noise."""
    g = torch.Generator()
    g.manual_seed(seed)
    t = torch.arange(0, n_steps, dtype=torch.float32).unsqueeze(1)
    phase = torch.rand(1, n_sensors, generator=g) * 2 * math.pi
    freq = 0.05 + 0.1 * torch.rand(1, n_sensors, generator=g)
    noise = 0.1 * torch.randn(n_steps, n_sensors, generator=g)
    return torch.sin(t * freq + phase) + noise


def normalise(series):
    mean = series.mean(0, keepdim=True)
    std = series.std(0, keepdim=True)
    return (series - mean) / std, mean, std


def batchify(series, bsz):
    n = series.size(0) // bsz
    return series[:n * bsz].view(bsz, n, -1).transpose(0, 1).contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, source.size(0) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len]
