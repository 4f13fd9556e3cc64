# expect-before: runs
# autodetach-test: unsafe
# Grad-CAM written inline, as in visualisation scripts: the explainer is given
# a trained model, runs its feature layers one by one, hooks the gradient of
# the target layer and backwards the chosen class once with retain_graph=True.
# The map is built from `.data`; nothing backwards that graph again and the
# method returns only the map, so the retain keeps every activation alive until
# `generate_cam` returns for nothing. The model is handed in (out of sight) and
# inferred to keep nothing from one call to the next: the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1),
                                      nn.ReLU())
        self.classifier = nn.Linear(4 * 6 * 6, 3)


class GradCam:
    def __init__(self, model, target_layer):
        self.model = model
        self.model.eval()
        self.target_layer = target_layer
        self.gradients = None

    def save_gradient(self, grad):
        self.gradients = grad

    def generate_cam(self, x, target_class=None):
        conv_output = None
        for pos, module in self.model.features._modules.items():
            x = module(x)
            if int(pos) == self.target_layer:
                x.register_hook(self.save_gradient)
                conv_output = x
        out = self.model.classifier(x.view(x.size(0), -1))
        if target_class is None:
            target_class = int(out.argmax())
        one_hot = torch.zeros_like(out)
        one_hot[0][target_class] = 1
        self.model.zero_grad()
        out.backward(gradient=one_hot)
        weights = self.gradients.data.mean(dim=(2, 3))[0]
        cam = (weights[:, None, None] * conv_output.data[0]).sum(0)
        return cam.clamp(min=0)


if __name__ == "__main__":
    torch.manual_seed(0)
    cam = GradCam(Net(), target_layer=1)
    for step in range(ITERS):
        m = cam.generate_cam(torch.rand(1, 1, 6, 6))
        print(step, f"{m.sum().item():.6f} {cam.gradients.abs().sum().item():.6f}")
