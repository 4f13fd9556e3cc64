# expect-before: runs
# The same Grad-CAM explainer as a plain class returning the map and the
# logits, but its caller backwards the returned logits again (a second class's
# gradients on the same forward): the retain in `explain()` is what lets that
# second backward run. No finding.
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


class ScoreMapper:
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
        logits[:, label].sum().backward(retain_graph=True)
        weights = self.store["grad"].mean(dim=(2, 3), keepdim=True)
        heat = torch.relu((weights * self.store["act"]).sum(1)).data
        return heat, logits

    def __call__(self, image, label=None):
        return self.explain(image, label)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Net()
    mapper = ScoreMapper(net, net.body[1])
    for step in range(ITERS):
        heat, logits = mapper(torch.rand(1, 1, 6, 6), step % 3)
        first = heat.clone()
        net.zero_grad()
        logits[:, (step + 1) % 3].sum().backward()
        second = torch.relu((mapper.store["grad"].mean(dim=(2, 3), keepdim=True) * mapper.store["act"]).sum(1))
        print(step, f"{first.sum().item():.6f} {second.sum().item():.6f}")
