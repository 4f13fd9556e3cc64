# expect-before: runs
# The saliency module of saliency_module_forward_hook.py (its hook attribute named
# `layer_out`), but the script reads
# the activations the forward hook keeps (`explain.layer_out`) after each call and
# backwards a penalty on them: that walks the classifier's graph again, so the
# retain in `forward` is what lets it run. Dropping it fails ("Trying to
# backward through the graph a second time").
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class SaliencyMap(nn.Module):
    def __init__(self, classifier, layer):
        super().__init__()
        self.classifier = classifier
        self.layer_out = None
        self.feat_grad = None
        layer.register_forward_hook(self.remember)
        layer.register_full_backward_hook(self.remember_grad)

    def remember(self, module, inputs, output):
        self.layer_out = output

    def remember_grad(self, module, grad_in, grad_out):
        self.feat_grad = grad_out[0]

    def forward(self, images, label):
        logits = self.classifier(images)
        self.classifier.zero_grad()
        chosen = logits[:, label].sum()
        chosen.backward(retain_graph=True)
        weights = self.feat_grad.mean(dim=(2, 3), keepdim=True)
        heat = (weights * self.layer_out).sum(1).abs()
        return heat.detach(), logits.argmax(dim=1)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.Tanh(), nn.Flatten(), nn.Linear(3 * 36, 4))
    explain = SaliencyMap(net, net[1])
    for step in range(ITERS):
        heat, pred = explain(torch.rand(2, 1, 6, 6), step % 4)
        penalty = explain.layer_out.pow(2).mean()
        penalty.backward()
        print(step, f"{heat.sum().item():.6f} {penalty.item():.6f}", pred.tolist())
