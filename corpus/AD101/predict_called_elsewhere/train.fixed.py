# expect-before: runs
# autodetach-test: unsafe
# A prediction function whose only caller is in another file of the project
# (runner.py): it runs the model with gradients on
# and grows its result by concatenation, `result = torch.cat((result, pred))`,
# so the result hangs from every step's graph until the function returns.
# That no caller runs it under `torch.no_grad()` or backwards its result is
# inferred from reading those files: the fix is offered as unsafe.
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
        result = torch.cat((result, pred), dim=0).detach()
    return result.detach().numpy()


if __name__ == "__main__":
    from runner import main

    torch.manual_seed(0)
    main(ITERS)
