# expect-before: runs
# The model-object trainer written correctly: the generator loss is built
# after `model.dis_optimizer.step()`, through the updated discriminator.
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
        model.dis_optimizer.zero_grad()
        d_loss.backward()
        model.dis_optimizer.step()
        g_loss = model.l1_loss(prediction, gt) - model.discriminator(prediction).mean()
        model.gen_optimizer.zero_grad()
        g_loss.backward()
        model.gen_optimizer.step()
        print(f"{i} d {d_loss.item():.6f} g {g_loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = InpaintModel()
    train(model, ITERS)
    print(f"checksum {sum(p.sum().item() for p in model.generator.parameters()):.6f}")
