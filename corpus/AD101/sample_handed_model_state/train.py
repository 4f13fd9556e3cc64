# expect-before: runs
# autodetach-test: unsafe
# A sampling function handed the model by runner.py (`train.sample(model,
# ...)` after training, with gradients on): the LSTM state it starts from
# `model.init_hidden(1)` is fed back into every step, and the outputs leave
# only as numbers, so each step's graph hangs from all earlier ones until the
# function returns. Nothing in this file tells the model's class: that it is
# a module with parameters is inferred from `init_hidden`, which only the
# project's module class `CharLSTM` defines, and the callers are read from
# runner.py, so the fix (the step under no_grad) is unsafe.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def sample(model, prime, length):
    hidden = model.init_hidden(1)
    x = torch.tensor(prime).view(-1, 1)
    logits, hidden = model(x, hidden)
    x = logits[-1:].argmax(-1)
    chars = list(prime)
    for _ in range(length):
        logits, hidden = model(x, hidden)
        x = logits.data.argmax(-1)
        chars.append(int(x.item()))
    return chars


if __name__ == "__main__":
    from runner import main

    torch.manual_seed(0)
    main(ITERS)
