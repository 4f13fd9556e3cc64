# expect-before: runs
# A training function keeps a history of each step's losses, turned into
# numbers by a helper that leaves plain numbers as they are and calls
# `.item()` on the tensors (`isinstance(value, (int, float))`): the history
# holds floats, no graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def to_numbers(losses):
    out = {}
    for key, value in losses.items():
        if isinstance(value, (int, float)):
            out[key] = value
        else:
            out[key] = value.detach().cpu().item()
    return out


def train(model, opt, loader, crit):
    history = []
    for x, y in loader:
        out = model(x)
        losses = {"loss": crit(out, y), "weight": 1.0}
        opt.zero_grad()
        losses["loss"].backward()
        opt.step()
        history.append(to_numbers(losses))
    return history


def main():
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(ITERS)]
    history = train(model, opt, loader, nn.MSELoss())
    print("ITERS", ITERS, [round(h["loss"], 4) for h in history])


if __name__ == "__main__":
    main()
