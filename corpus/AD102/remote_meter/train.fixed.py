# expect-before: runs
# autodetach-test: unsafe
# A loss tracker whose callers live in another file (loop.py): `update_losses`
# adds each entry of the dict it is given into `self.sums`, and loop.py gives it
# the step's losses, which carry their graphs (`losses["total"].backward()`
# there), so the sums chain every step's graph. The finding is here, where one
# `.detach()` serves every caller; what the callers pass is inferred from
# another file, so the fix is unsafe.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class LossTracker:
    def __init__(self, keys):
        self.sums = {k: 0.0 for k in keys}
        self.steps = 0

    def update_losses(self, losses):
        for key in losses:
            self.sums[key] += losses[key].detach()
        self.steps += 1

    def means(self):
        return {k: float(v) / max(self.steps, 1) for k, v in self.sums.items()}


if __name__ == "__main__":
    from loop import run

    torch.manual_seed(0)
    run(ITERS, LossTracker)
