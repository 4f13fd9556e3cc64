"""The project's entry point: trains, then predicts (no torch here)."""
from train import fit, predict


def main(iters):
    import torch.nn as nn
    from torch import randn

    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    data = [(randn(8, 6), randn(8, 2)) for _ in range(iters)]
    fit(net, data)
    out = predict(net, [x for x, _ in data])
    print(" ".join(f"{v:.6f}" for v in out.sum(0)))
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
