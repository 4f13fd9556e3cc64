# expect-before: runs
# The models, optimizer and loss come in a dict and the batch goes through a
# callback passed as an argument, so no constructor or role says that `loss`
# carries a graph. `loss.backward()` does: a backward runs only on a tensor
# with a graph. `total_loss += loss` then chains every step's graph to the
# epoch's total, which is returned and kept.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(loader, bag, transform):
    total_loss = 0.0
    n = 0
    for x, y in loader:
        bag["optimizer"].zero_grad()
        out = bag["net"](transform(x))
        loss = bag["criterion"](out, y)
        loss.backward()
        bag["optimizer"].step()
        total_loss += loss
        n += 1
    return total_loss / n


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    bag = {"net": net, "optimizer": torch.optim.SGD(net.parameters(), lr=0.05), "criterion": nn.MSELoss()}
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    for epoch in range(2):
        mean = train(data, bag, lambda t: t * 0.5)
        print(f"epoch {epoch} mean {float(mean):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
