# expect-before: runs
# autodetach-test: unsafe
# A Grad-CAM explainer written as a plain class (not an nn.Module): `__call__`
# hands on to `explain()`, which runs a fresh forward of the model, backwards
# the chosen class score once with retain_graph=True, builds the map from the
# hooked activations and gradients under `.data`, and returns the map and the
# logits. The logits carry the graph out of the method, which makes the retain
# look needed; but the only caller in the project (the loop below) reads them
# through `.detach()`, and nothing else backwards that graph: the retain keeps
# the model's saved activations alive for nothing. Callers out of sight are
# inferred not to backward the returned logits again: the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU())
        self.head = nn.Linear(4 * 6 * 6, 3)

    def forward(self, x):
        return self.head(self.body(x).flatten(1))


class ClassMap:
    def __init__(self, net, layer):
        self.net = net
        self.store = {}
        layer.register_forward_hook(self.keep_activation)
        layer.register_full_backward_hook(self.keep_gradient)

    def keep_activation(self, module, inputs, output):
        self.store["act"] = output

    def keep_gradient(self, module, grad_in, grad_out):
        self.store["grad"] = grad_out[0]

    def explain(self, image, label=None):
        logits = self.net(image)
        if label is None:
            label = int(logits.argmax(1)[0])
        self.net.zero_grad()
        logits[:, label].sum().backward()
        weights = self.store["grad"].mean(dim=(2, 3), keepdim=True)
        heat = torch.relu((weights * self.store["act"]).sum(1)).data
        return heat, logits

    def __call__(self, image, label=None):
        return self.explain(image, label)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Net()
    mapper = ClassMap(net, net.body[1])
    for step in range(ITERS):
        heat, logits = mapper(torch.rand(1, 1, 6, 6), step % 3)
        print(step, f"{heat.sum().item():.6f} {logits.detach().abs().sum().item():.6f}")
