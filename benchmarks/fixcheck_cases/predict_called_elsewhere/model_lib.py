"""fit and predict; predict is called only from main.py, with gradients on."""
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
