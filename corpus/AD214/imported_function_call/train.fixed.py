# expect-before: error Legacy autograd function with non-static forward method is deprecated
# `LeakyClamp` lives in functions.py and is called here through an instance,
# `LeakyClamp()(h)`, as PyTorch 0.3 code did: that raises on torch 2.x, legacy
# class or static one. The call becomes `LeakyClamp.apply(h)` (AD214 rewrites
# the class itself in functions.py; `apply` runs either form the same way).
import os

import torch
import torch.nn as nn

from functions import LeakyClamp

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc2(LeakyClamp.apply(self.fc1(x)))


def train(model, data, opt):
    for i, (x, y) in enumerate(data):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"{i} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train(model, [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)], opt)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
