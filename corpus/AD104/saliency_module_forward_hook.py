# expect-before: runs
# autodetach-test: unsafe
# A saliency map written as an nn.Module whose forward explains its input: a
# forward hook keeps the target layer's activations on `self.hooked_map` (each call
# overwrites them), a backward hook keeps their gradient, and `forward` runs a
# fresh forward of the wrapped classifier and backwards the chosen class score
# once with retain_graph=True. After that walk it reads the graph only through
# `.detach()` and returns the map and the predicted class (an argmax): nothing
# backwards that graph again, and the retain keeps the classifier's saved
# activations alive until the next call. That the classifier handed in keeps
# nothing between calls, and that the images carry no graph, is inferred: the
# fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class SaliencyMap(nn.Module):
    def __init__(self, classifier, layer):
        super().__init__()
        self.classifier = classifier
        self.hooked_map = None
        self.feat_grad = None
        layer.register_forward_hook(self.remember)
        layer.register_full_backward_hook(self.remember_grad)

    def remember(self, module, inputs, output):
        self.hooked_map = output

    def remember_grad(self, module, grad_in, grad_out):
        self.feat_grad = grad_out[0]

    def forward(self, images, label):
        logits = self.classifier(images)
        self.classifier.zero_grad()
        chosen = logits[:, label].sum()
        chosen.backward(retain_graph=True)
        weights = self.feat_grad.mean(dim=(2, 3), keepdim=True)
        heat = (weights * self.hooked_map).sum(1).abs()
        return heat.detach(), logits.argmax(dim=1)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.Tanh(), nn.Flatten(), nn.Linear(3 * 36, 4))
    explain = SaliencyMap(net, net[1])
    for step in range(ITERS):
        heat, pred = explain(torch.rand(2, 1, 6, 6), step % 4)
        print(step, f"{heat.sum().item():.6f}", pred.tolist())
