# expect-before: runs
# A loss tracker whose callers live in another file (loop.py): loop.py gives
# `update_losses` the step's losses, which carry their graphs, but the tracker
# adds only their numbers (.item()), so nothing keeps a graph.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class LossTracker:
    def __init__(self, keys):
        self.sums = {k: 0.0 for k in keys}
        self.steps = 0

    def update_losses(self, losses):
        for key in losses:
            self.sums[key] += losses[key].item()
        self.steps += 1

    def means(self):
        return {k: float(v) / max(self.steps, 1) for k, v in self.sums.items()}


if __name__ == "__main__":
    from loop import run

    torch.manual_seed(0)
    run(ITERS, LossTracker)
