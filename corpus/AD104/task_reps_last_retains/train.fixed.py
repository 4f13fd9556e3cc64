# expect-before: runs
# autodetach-test: unsafe
# A multi-task library's weighting method (GradDrop-like): the model class
# mixes an architecture (arch.py, which keeps each task's representation in
# `self.rep`) with this weighting, whose `backward` first gets each task's
# gradient on its detached representation, then backwards each task's
# representation into the shared encoder with retain_graph=True. The
# representations share the encoder's graph, so every task but the last needs
# the retain; the last one keeps the graph alive until the next batch. The
# graph is built out of sight (arch.py, inferred), so the fix is unsafe.
import os

import torch
from torch import nn

from arch import HardSharing

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GradScale:
    def backward(self, losses, scale):
        grads = []
        for tn, task in enumerate(self.task_name):
            losses[tn].backward(retain_graph=True)
            grads.append(self.rep_tasks[task].grad * scale[tn])
        for tn, task in enumerate(self.task_name):
            self.rep[task].backward(grads[tn], retain_graph=tn < len(self.task_name) - 1)


class Model(HardSharing, GradScale):
    pass


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model(["a", "b", "c"])
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(ITERS):
        x = torch.randn(8, 10)
        out = model(x)
        losses = [((out[t] - x[:, :1] * (k + 1)) ** 2).mean() for k, t in enumerate(model.task_name)]
        opt.zero_grad()
        model.backward(losses, [1.0, 0.5, 2.0])
        opt.step()
        print(step, " ".join(f"{loss.item():.6f}" for loss in losses))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
