# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A prototype classifier normalises its learnable prototypes once at the start
# of fit(); each step's cosine logits reuse that freed graph.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ProtoNet(nn.Module):
    def __init__(self, dim=6, classes=3):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, 8))
        self.prototypes = nn.Parameter(torch.randn(classes, 8))

    def fit(self, steps):
        opt = torch.optim.SGD(self.parameters(), lr=0.1)
        for step in range(steps):
            protos = F.normalize(self.prototypes, dim=1)
            x = torch.randn(12, 6)
            y = torch.randint(0, 3, (12,))
            z = F.normalize(self.embed(x), dim=1)
            loss = F.cross_entropy(8.0 * z @ protos.t(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(f"{step} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = ProtoNet()
    net.fit(ITERS)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
