# expect-before: error modified by an inplace operation
# An inpainting trainer class: `process` builds both losses, `backward`
# receives them as arguments and steps the discriminator before the
# generator's backward, whose graph went through the discriminator.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class InpaintingModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 6))
        self.discriminator = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.gen_optimizer = torch.optim.Adam(self.generator.parameters(), lr=1e-3)
        self.dis_optimizer = torch.optim.Adam(self.discriminator.parameters(), lr=1e-3)

    def process(self, images, masks):
        self.gen_optimizer.zero_grad()
        self.dis_optimizer.zero_grad()
        outputs = self.generator(images * masks)
        dis_loss = torch.relu(1 - self.discriminator(images)).mean() + \
            torch.relu(1 + self.discriminator(outputs.detach())).mean()
        gen_loss = (outputs - images).abs().mean() - 0.1 * self.discriminator(outputs).mean()
        return outputs, gen_loss, dis_loss

    def backward(self, gen_loss=None, dis_loss=None):
        dis_loss.backward()
        self.dis_optimizer.step()
        gen_loss.backward()
        self.gen_optimizer.step()


torch.manual_seed(0)
model = InpaintingModel()
for i in range(ITERS):
    images = torch.randn(8, 6)
    masks = (torch.rand(8, 6) > 0.3).float()
    outputs, gen_loss, dis_loss = model.process(images, masks)
    model.backward(gen_loss, dis_loss)
    print(f"{i} gen {gen_loss.item():.6f} dis {dis_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.generator.parameters()):.6f}")
