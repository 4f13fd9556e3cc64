# expect-before: runs
# The same class-activation map, but the helper object smooths what it taps with
# the previous call's activations (a running mix it keeps on itself, with their
# graph): the next call's backward walks into this call's graph, so the retain
# in `explain` is needed. Dropping it fails ("Trying to backward through the
# graph a second time").
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class LayerTap:
    def __init__(self, model, layer):
        self.model = model
        self.layer = layer
        self.grad = None
        self.mix = None

    def keep_grad(self, grad):
        self.grad = grad

    def run(self, x):
        tapped = None
        for i, module in enumerate(self.model):
            x = module(x)
            if i == self.layer:
                if self.mix is not None:
                    x = 0.5 * x + 0.5 * self.mix
                self.mix = x
                x.register_hook(self.keep_grad)
                tapped = x
        return tapped, x


class ActivationMap:
    def __init__(self, model, layer):
        self.model = model
        self.model.eval()
        self.tap = LayerTap(model, layer)

    def explain(self, image, target=None):
        tapped, scores = self.tap.run(image)
        if target is None:
            target = int(scores.argmax(dim=1)[0])
        one_hot = torch.zeros_like(scores)
        one_hot[0, target] = 1.0
        self.model.zero_grad()
        scores.backward(gradient=one_hot, retain_graph=True)
        weights = self.tap.grad.detach().mean(dim=0)
        cam = (weights * tapped.detach()[0]).clamp(min=0)
        return cam / (cam.max() + 1e-8)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
    explainer = ActivationMap(net, layer=2)
    for step in range(ITERS):
        cam = explainer.explain(torch.rand(1, 6))
        print(step, " ".join(f"{v:.6f}" for v in cam.tolist()))
