# expect-before: runs
# The sampling function of sample_handed_model_state, which runner.py calls
# under `torch.no_grad()`: the state fed back carries no graph, nothing is
# reported.
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
