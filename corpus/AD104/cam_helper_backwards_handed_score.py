# expect-before: runs
# autodetach-test: unsafe
# A CAM explainer splits its work: `__call__` runs a fresh forward of the
# model and hands the scores to `_class_map()`, which backwards the chosen
# class once with retain_graph=True and builds the map from the hooked
# activations and gradients under `.data`. The backwarded value is a parameter
# of the helper, so its graph looks like the caller's to keep; but the only
# call (in `__call__`) backwards nothing afterwards and returns the map and a
# plain int: the retain keeps the network's activations alive for nothing.
# That no other code calls the helper with a graph it backwards again is
# inferred: the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Saved:
    def __init__(self, layer):
        self.act = None
        self.grad = None
        layer.register_forward_hook(self.forward_hook)
        layer.register_full_backward_hook(self.backward_hook)

    def forward_hook(self, module, inputs, output):
        self.act = output

    def backward_hook(self, module, grad_in, grad_out):
        self.grad = grad_out[0]


class Explainer:
    def __init__(self, model, layer):
        self.model = model
        self.saved = Saved(layer)

    def __call__(self, image, label=None):
        scores = self.model(image)
        if label is None:
            _, label = scores.max(dim=1)
            label = label.item()
        heat = self._class_map(self.saved, scores, label)
        return heat, label

    def _class_map(self, saved, scores, label):
        self.model.zero_grad()
        scores[0, label].backward(retain_graph=True)
        alpha = saved.grad.mean(dim=(2, 3), keepdim=True)
        heat = torch.relu((alpha * saved.act).sum(dim=1))
        return (heat / (heat.max() + 1e-8)).data


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 5 * 5, 4))
    explain = Explainer(model, model[1])
    for step in range(ITERS):
        heat, label = explain(torch.rand(1, 1, 5, 5))
        print(step, label, f"{heat.sum().item():.6f}")
