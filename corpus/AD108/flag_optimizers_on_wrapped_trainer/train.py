# expect-before: error modified by an inplace operation
# The trainer module is wrapped in DataParallel and its optimizers are read
# from `trainer.module`. Its forward computed the generator loss through the
# discriminator, whose optimizer steps before the generator's backward.
import os

import torch
from torch import nn

from trainer import Trainer

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
trainer = nn.parallel.DataParallel(Trainer())
trainer_module = trainer.module
for it in range(ITERS):
    losses = trainer(torch.randn(8, 6), torch.randn(8, 4))
    trainer_module.optimizer_d.zero_grad()
    losses["d"].backward()
    trainer_module.optimizer_d.step()
    trainer_module.optimizer_g.zero_grad()
    losses["g"].backward()
    trainer_module.optimizer_g.step()
    print(f"{it} d {losses['d'].item():.6f} g {losses['g'].item():.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer_module.netG.parameters()):.6f}")
