# expect-before: runs
# autodetach-test: unsafe
# A saliency helper written as a free function (as in attack and explanation
# libraries): it takes the model, makes its own input leaf, runs one forward,
# backwards the chosen score once with retain_graph=True and returns the input
# gradient together with the logits, which carry the graph out. Its only
# caller, in the sibling module run.py, prints the logits through `.item()`
# and never backwards them, so nothing walks the retained graph again: the
# retain only keeps the network's activations alive. Code out of sight may
# call the helper too (inferred): the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def input_saliency(model, image, label):
    x = image.clone().requires_grad_(True)
    out = model(x)
    out[0, label].backward(retain_graph=True)
    return x.grad.abs(), out


if __name__ == "__main__":
    from run import explain

    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))
    explain(net, ITERS)
