# expect-before: runs
# The same inline Grad-CAM, but `generate_cam` keeps the class scores on the
# explainer and `contrast` later backwards another class through that graph to
# compare the two maps: the retain is what lets that second backward run.
# Dropping it fails ("Trying to backward through the graph a second time").
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
        self.scores = out
        if target_class is None:
            target_class = int(out.argmax())
        one_hot = torch.zeros_like(out)
        one_hot[0][target_class] = 1
        self.model.zero_grad()
        out.backward(gradient=one_hot, retain_graph=True)
        weights = self.gradients.data.mean(dim=(2, 3))[0]
        cam = (weights[:, None, None] * conv_output.data[0]).sum(0)
        return cam.clamp(min=0)

    def contrast(self, other_class):
        self.model.zero_grad()
        self.scores[0, other_class].backward()
        return self.gradients.data.abs().sum()


if __name__ == "__main__":
    torch.manual_seed(0)
    cam = GradCam(Net(), target_layer=1)
    for step in range(ITERS):
        m = cam.generate_cam(torch.rand(1, 1, 6, 6))
        other = cam.contrast(0)
        print(step, f"{m.sum().item():.6f} {cam.gradients.abs().sum().item():.6f}", f"{other.item():.6f}")
