# expect-before: grows
# The model comes from a factory of the project's models.py, wrapped in
# DataParallel (DistributedDataParallel in a multi-GPU run), and its forward
# returns a tuple. The epoch's absolute error is summed from the prediction
# of each training step: `train_ae` is never backwarded, so it keeps every
# step's graph until the epoch ends. Detaching what is added leaves the
# training unchanged.
import os

import torch
import torch.nn as nn
from torch.nn.parallel import DataParallel

from models import build_model

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
# DataParallel scatters to the GPU wherever there is one: keep everything there.
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def main():
    torch.manual_seed(0)
    model = DataParallel(build_model(16).to(DEVICE))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    data = [(torch.randn(8, 6).to(DEVICE), torch.randn(8, 1).to(DEVICE)) for _ in range(ITERS)]
    train_ae = torch.tensor(0.0, device=DEVICE)
    for x, y in data:
        out, _ = model(x)
        loss = nn.functional.mse_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        train_ae += torch.abs(out - y).sum()
        print(f"loss {loss.item():.6f}")
    print(f"mean error {train_ae.item() / len(data):.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
