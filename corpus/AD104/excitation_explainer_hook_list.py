# expect-before: runs
# autodetach-test: unsafe
# An attribution explainer as a plain class: a forward hook, defined inside
# the method that registers it, appends the hooked layers' outputs to
# `self.kept`, which `attribute` empties before each forward. It takes a first
# gradient of the class score down to the deeper layer (retained: the second
# grad walks on from there), then a last gradient from that layer down to the
# shallower one with retain_graph=True, and keeps only `.data` of it. Nothing
# walks that graph after the last grad and `self.kept` is emptied by the next
# call: the last retain is unneeded (the first one is needed). That the model
# handed in keeps nothing between calls is inferred: the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def build():
    return nn.Sequential(nn.Linear(5, 6), nn.Tanh(), nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 3))


class LayerAttribution(object):
    def __init__(self, model, shallow, deep):
        self.model = model
        self._hook(shallow, deep)

    def _hook(self, shallow, deep):
        self.kept = []

        def keep(m, i, o):
            self.kept.append(o)

        shallow.register_forward_hook(keep)
        deep.register_forward_hook(keep)

    def attribute(self, x, target=None):
        self.kept = []
        scores = self.model(x)
        low, high = self.kept
        if target is None:
            target = scores.data.argmax(1)
        seed = torch.zeros_like(scores.data)
        seed.scatter_(1, target.unsqueeze(1), 1.0)
        top = torch.autograd.grad(scores, high, seed, retain_graph=True)[0].data.clone()
        down = torch.autograd.grad(high, low, top, retain_graph=True)
        return down[0].data.clone().clamp(min=0.0)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = build()
    explainer = LayerAttribution(net, net[1], net[3])
    for step in range(ITERS):
        att = explainer.attribute(torch.randn(2, 5))
        print(step, f"{att.sum().item():.6f}")
