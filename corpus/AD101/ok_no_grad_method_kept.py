# expect-before: runs
# A module method decorated `@torch.no_grad()` computes the embeddings a
# bank keeps across iterations: what it returns carries no graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        return self.fc(x)

    @torch.no_grad()
    def embed(self, x):
        return nn.functional.normalize(self.fc(x), dim=1)


net = Encoder()
opt = torch.optim.SGD(net.parameters(), lr=0.05)
bank = []

for step in range(ITERS):
    x = torch.randn(8, 6)
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    bank.append(net.embed(x))
    print(f"{step} loss {loss.item():.6f}")

print(f"bank {torch.cat(bank).sum().item():.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
