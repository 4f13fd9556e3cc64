# expect-before: runs
# The model's own method (another file) backwards and steps, then hands back
# the error it backwarded; the loop keeps numbers (`.item()`) for the
# epoch's mean: no graph outlives its batch.
import os

import torch
from regressor import Regressor

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def build():
    model = Regressor()
    return model


def run(model, batches, epochs):
    for epoch in range(epochs):
        hist = []
        for x, y in batches:
            out, _ = model.fit_batch(x, y)
            hist.append(out.item())
        print(f"epoch {epoch} mean {float(sum(hist)) / len(hist):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)]
    net = build()
    run(net, data, 2)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
