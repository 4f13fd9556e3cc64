# expect-before: runs
# The script of loss_dict_entries_in_project with a model whose forward runs
# the critic once: the generator's adversarial entry reads the same critic
# outputs as the critic's entries, so the generator's backward walks the graph
# the critic's backward retained, and retain_graph=True is needed.
import os

import torch
from torch import nn

from model import InpaintTrainer

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def main():
    torch.manual_seed(0)
    trainer = InpaintTrainer()
    if torch.cuda.device_count() > 1:
        trainer = nn.DataParallel(trainer)
    for step in range(ITERS):
        real = torch.randn(4, 6)
        mask = (torch.rand(4, 6) > 0.5).float()
        x = real * (1.0 - mask)
        losses, filled = trainer(x, mask, real)

        trainer.optimizer_d.zero_grad()
        losses["d"] = losses["d_real"] + losses["d_fake"]
        losses["d"].backward(retain_graph=True)

        # the generator's gradients only: the critic's stay those of its own loss
        trainer.optimizer_g.zero_grad()
        losses["g"] = losses["l1"] + 0.1 * losses["g_adv"]
        losses["g"].backward(inputs=list(trainer.netG.parameters()))
        trainer.optimizer_d.step()
        trainer.optimizer_g.step()
        print(step, f"{losses['d'].item():.6f} {losses['g'].item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.parameters()):.6f}")


if __name__ == "__main__":
    main()
