# expect-before: runs
# The saliency module of saliency_module_forward_hook.py, but `forward` also
# keeps the logits on `self.last_logits`, and `contrast` backwards another
# class through them after the map: the retain in `forward` is what lets that
# second backward run.
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
        self.last_logits = logits
        self.classifier.zero_grad()
        chosen = logits[:, label].sum()
        chosen.backward(retain_graph=True)
        weights = self.feat_grad.mean(dim=(2, 3), keepdim=True)
        heat = (weights * self.hooked_map).sum(1).abs()
        return heat.detach(), logits.argmax(dim=1)

    def contrast(self, other):
        self.classifier.zero_grad()
        self.last_logits[:, other].sum().backward()
        return self.feat_grad.abs().sum()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.Tanh(), nn.Flatten(), nn.Linear(3 * 36, 4))
    explain = SaliencyMap(net, net[1])
    for step in range(ITERS):
        heat, pred = explain(torch.rand(2, 1, 6, 6), step % 4)
        other = explain.contrast((step + 1) % 4)
        print(step, f"{heat.sum().item():.6f} {other.item():.6f}", pred.tolist())
