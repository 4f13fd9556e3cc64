"""The project's entry point: estimates log weights with a trained decoder."""
import train


def main(iters):
    import torch
    import torch.nn as nn
    from torch import randn

    decoder = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 5))
    batches = [randn(4, 5) for _ in range(iters)]
    with torch.no_grad():
        logws = train.log_weights(decoder, batches)
    print(" ".join(f"{w.mean().item():.6f}" for w in logws))
