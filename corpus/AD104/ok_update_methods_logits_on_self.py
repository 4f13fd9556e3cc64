# expect-before: runs
# The negative of update_methods_logits_on_self: the generator's relativistic
# loss in `update_G()` reads `self.gt_logit.mean()`, the discriminator's output
# on real data that `update_D()` kept on `self` and whose graph its backward
# walked (the D step runs after the G backward, so that graph is not stale).
# The G backward goes through the retained D graph again: `update_D()` needs
# retain_graph=True, and nothing is reported.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Inpainter:
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        self.netD = nn.Linear(8, 1)
        self.opt_G = torch.optim.Adam(self.netG.parameters(), lr=0.01)
        self.opt_D = torch.optim.Adam(self.netD.parameters(), lr=0.01)
        self.d_iters = 1
        self.d_logit, self.gt_logit = None, None
        self.d_loss, self.g_loss = None, None

    def set_input(self, gt):
        self.gt = gt
        self.mask = (torch.rand(gt.shape) > 0.5).float()

    def update_D(self):
        self.d_logit = self.netD(self.completed.detach())
        self.gt_logit = self.netD(self.gt)
        loss_d = torch.relu(1.0 - self.gt_logit).mean() + torch.relu(1.0 + self.d_logit).mean()
        loss_d.backward(retain_graph=True)
        self.d_loss = loss_d.item()

    def update_G(self):
        self.g_loss = (self.completed - self.gt).abs().mean()
        self.d_logit = self.netD(self.completed)
        self.g_loss = self.g_loss - 0.1 * (self.d_logit.mean() - self.gt_logit.mean())

    def optimize_parameters(self):
        pred = self.netG(self.gt * (1 - self.mask))
        self.completed = pred * self.mask + self.gt * (1 - self.mask)
        for _ in range(self.d_iters):
            self.opt_D.zero_grad()
            self.update_D()
        self.opt_G.zero_grad()
        self.update_G()
        self.g_loss.backward()
        self.opt_G.step()
        self.opt_D.step()

    def losses(self):
        return {"d": self.d_loss, "g": self.g_loss.item(), "real": self.gt_logit.mean().item()}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Inpainter()
    for step in range(ITERS):
        model.set_input(torch.randn(4, 8))
        model.optimize_parameters()
        print(step, {k: f"{v:.6f}" for k, v in model.losses().items()})
    print(f"checksum {sum(p.sum().item() for p in model.netG.parameters()):.6f}")
