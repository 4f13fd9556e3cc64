# expect-before: runs
# autodetach-test: unsafe
# A visualisation helper backwards the logits it is handed once, with a
# one-hot gradient and retain_graph=True. Its caller, run.py, is a notebook
# exported as a script: each cell runs a forward of the network on a new
# image, hands the logits to `backprop_class()` and then reads the input's
# gradient as numbers. Nothing after the call backwards that graph again and
# the logits are read only through `.argmax().item()`: the retain keeps every
# activation alive for nothing. Code out of sight may call the helper and
# backward its argument again (inferred): the fix is unsafe.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def backprop_class(output, target):
    one_hot = torch.zeros_like(output)
    one_hot[0, target] = 1.0
    output.backward(gradient=one_hot, retain_graph=True)


if __name__ == "__main__":
    torch.manual_seed(0)
    os.environ["AUTODETACH_ITERS"] = str(ITERS)  # the cells run.py runs
    import run  # noqa: F401  (its cells run on import)
