# expect-before: runs
# The negative of state_model_passed_in: `fit` cuts the state the model keeps
# (model.detach_state()) at the start of every chunk.
import os

import torch

from model import StatefulLM

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(model, chunks, opt):
    for i, (x, y) in enumerate(chunks):
        model.detach_state()
        opt.zero_grad()
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        print(f"{i} loss {loss.item():.6f}")


torch.manual_seed(0)
net = StatefulLM()
data = [(torch.randn(5, 2, 4), torch.randn(5, 2, 1)) for _ in range(ITERS)]
fit(net, data, torch.optim.SGD(net.parameters(), lr=0.1))
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
