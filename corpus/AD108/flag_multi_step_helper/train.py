# expect-before: error modified by an inplace operation
# A hierarchical generator (models.py: a manager that sets goals, a worker
# that acts on them) trained with one optimizer per part. Both losses come
# from one forward, and the worker's output is scaled by the manager's goal.
# The base class's `optimize_multi` (base.py) backwards the manager's loss,
# steps the manager's optimizer, and only then backwards the worker's loss,
# whose graph saved the manager weights that step just changed in place.
# Not fixed: the losses must both be backwarded before either step.
import os

import torch

from base import BaseInstructor
from models import HierGenerator

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class HierInstructor(BaseInstructor):
    def __init__(self, features=8):
        super().__init__()
        self.gen = HierGenerator(features, 4)
        mana_params, work_params = self.gen.split_params()
        mana_opt = torch.optim.Adam(mana_params, lr=1e-2)
        work_opt = torch.optim.Adam(work_params, lr=1e-2)
        self.gen_opt = [mana_opt, work_opt]

    def pretrain_generator(self, batches):
        for it, (x, target) in enumerate(batches):
            mana_loss, work_loss = self.gen.losses(x, target)
            self.optimize_multi(self.gen_opt, [mana_loss, work_loss])
            print(f"{it} manager {mana_loss.item():.6f} worker {work_loss.item():.6f}")


if __name__ == "__main__":
    instructor = HierInstructor()
    instructor.pretrain_generator([(torch.randn(16, 8), torch.randn(16, 8)) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in instructor.gen.parameters()):.6f}")
