# expect-before: runs
# The prediction function of predict_called_elsewhere, whose caller in
# runner.py runs it under `torch.no_grad()`: no graph is built. Nothing to report.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(model, batches):
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


def predict(model, batches):
    model.eval()
    result = torch.zeros(0, 2)
    for x in batches:
        pred = model(x)
        result = torch.cat((result, pred), dim=0)
    return result.detach().numpy()


if __name__ == "__main__":
    from runner import main

    torch.manual_seed(0)
    main(ITERS)
