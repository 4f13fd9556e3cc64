# expect-before: runs
# As wrapped_factory_error_sum (a model from a factory of models.py, wrapped
# in DataParallel, with a tuple output), but the error is computed from the
# prediction under torch.no_grad(): the epoch's sum holds no graph.
import os

import torch
import torch.nn as nn
from torch.nn.parallel import DataParallel

from models import build_model

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def main():
    torch.manual_seed(0)
    model = DataParallel(build_model(16).to("cpu"))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    data = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(ITERS)]
    train_ae = torch.tensor(0.0)
    for x, y in data:
        out, _ = model(x)
        loss = nn.functional.mse_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            train_ae += torch.abs(out - y).sum()
        print(f"loss {loss.item():.6f}")
    print(f"mean error {train_ae.item() / len(data):.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
