# expect-before: runs
# The weighting method of task_reps_last_retains, followed by a penalty on the
# task representations that `_rep_penalty` backwards after the per-task loop:
# the retain on the last task's backward keeps the encoder's graph for it, so
# every retain is needed.
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
            self.rep[task].backward(grads[tn], retain_graph=True)
        self._rep_penalty()

    def _rep_penalty(self):
        penalty = sum(r.pow(2).mean() for r in self.rep.values())
        (0.01 * penalty).backward()


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
