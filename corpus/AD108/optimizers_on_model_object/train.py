# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# An inpainting trainer whose networks and optimizers live on a model object
# built in another file: the generator loss goes through the discriminator
# before `model.dis_optimizer.step()` and is backwarded after it.
import os

import torch

from inpaint_model import InpaintModel

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, iters):
    for i in range(iters):
        gt = torch.randn(8, 6)
        mask = (torch.rand(8, 6) > 0.5).float()
        prediction = model.generator(gt * mask)
        d_loss = torch.relu(1 - model.discriminator(gt)).mean() + torch.relu(1 + model.discriminator(prediction.detach())).mean()
        g_loss = model.l1_loss(prediction, gt) - model.discriminator(prediction).mean()
        d_loss.backward()
        model.dis_optimizer.step()
        model.dis_optimizer.zero_grad()
        g_loss.backward()
        model.gen_optimizer.step()
        model.gen_optimizer.zero_grad()
        print(f"{i} d {d_loss.item():.6f} g {g_loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = InpaintModel()
    train(model, ITERS)
    print(f"checksum {sum(p.sum().item() for p in model.generator.parameters()):.6f}")
