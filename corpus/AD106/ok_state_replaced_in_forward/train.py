# expect-before: runs
# The loop hands the state the model returned back into the next step (`state if i
# else None`), but in that arm the model is `NoisyGRU` (its `name`), whose forward
# replaces any state it is handed with fresh noise before the GRU reads it: no graph
# crosses from one step's backward into the next, so nothing is reported.
import os

import torch

from models import NoisyGRU, Plain

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(model, data, opt):
    total = 0.0
    state = None
    for i, x in enumerate(data):
        if model.name == "NoisyGRU":
            y, state = model(x, state if i else None)
        else:
            y = model(x)
        loss = torch.mean((y - x) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    return total / len(data)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = torch.randn(ITERS, 3)
    for cls in (NoisyGRU, Plain):
        model = cls(3)
        print(f"{model.name} {fit(model, data, torch.optim.SGD(model.parameters(), lr=0.1)):.6f}")
    print(f"steps {ITERS}")
