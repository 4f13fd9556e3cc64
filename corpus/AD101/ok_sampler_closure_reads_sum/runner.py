"""The project's entry point: measures how the path energy depends on the start."""
from train import start_sensitivity


def main(iters):
    import torch.nn as nn
    from torch import randn

    decoder = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 5))
    batches = [randn(4, 5) for _ in range(iters)]
    print(" ".join(f"{v:.6f}" for v in start_sensitivity(decoder, batches)))
