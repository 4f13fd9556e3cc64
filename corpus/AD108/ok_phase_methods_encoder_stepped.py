# expect-before: runs
# The fixed BicycleGAN-style phases: `backward_G_alone()` runs before the
# generator and encoder steps, so the graph stored on `self` by `forward()`
# still holds the weights it saved.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class BaseModel:
    def set_input(self, batch):
        self.real_A = batch[:, :4]
        self.real_B = batch[:, 4:]


class BiCycleModel(BaseModel):
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 4))
        self.netE = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
        self.criterionL1 = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=1e-3)
        self.optimizer_E = torch.optim.Adam(self.netE.parameters(), lr=1e-3)
        self.optimizers = [self.optimizer_G, self.optimizer_E]

    def forward(self):
        self.z_encoded = self.netE(self.real_B)
        self.z_random = torch.randn(self.real_A.size(0), 2)
        self.fake_B_encoded = self.netG(torch.cat([self.real_A, self.z_encoded], 1))
        self.fake_B_random = self.netG(torch.cat([self.real_A, self.z_random], 1))
        self.mu2 = self.netE(self.fake_B_random)

    def backward_EG(self):
        self.loss_G = self.criterionL1(self.fake_B_encoded, self.real_B)
        self.loss_G.backward(retain_graph=True)

    def backward_G_alone(self):
        self.loss_z_L1 = self.criterionL1(self.mu2, self.z_random)
        self.loss_z_L1.backward()

    def update_G_and_E(self):
        self.optimizer_E.zero_grad()
        self.optimizer_G.zero_grad()
        self.backward_EG()
        self.backward_G_alone()
        self.optimizer_E.step()
        self.optimizer_G.step()

    def optimize_parameters(self):
        self.forward()
        self.update_G_and_E()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = BiCycleModel()
    for it in range(ITERS):
        model.set_input(torch.randn(8, 8))
        model.optimize_parameters()
        print(f"{it} loss_G {model.loss_G.item():.6f} loss_z {model.loss_z_L1.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.netG.parameters()):.6f}")
