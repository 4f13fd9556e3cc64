# expect-before: runs
# The same MUNIT-style trainer driven through a table of lambdas, written
# correctly: `gen_update()` scores the stored generated batch with the critic
# again, after the critic's step (the generator has not been stepped since).
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 4))
        self.dis = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        dis_params = list(self.dis.parameters())
        gen_params = list(self.gen.parameters())
        self.dis_opt = torch.optim.Adam([p for p in dis_params if p.requires_grad], lr=1e-3)
        self.gen_opt = torch.optim.Adam([p for p in gen_params if p.requires_grad], lr=1e-3)

    def dis_update(self, x):
        self.dis_opt.zero_grad()
        self.x_fake = self.gen(torch.randn(x.size(0), 4))
        self.loss_dis = self.dis(self.x_fake.detach()).mean() - self.dis(x).mean()
        self.loss_dis.backward()
        self.dis_opt.step()

    def gen_update(self, x):
        self.gen_opt.zero_grad()
        self.loss_gen = -self.dis(self.x_fake).mean()
        self.loss_gen.backward()
        self.gen_opt.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    phases = {"dis": lambda x: trainer.dis_update(x), "gen": lambda x: trainer.gen_update(x)}
    for it in range(ITERS):
        real = torch.randn(16, 4) * 0.5 + 1.0
        for name in ("dis", "gen"):
            phases[name](real)
        print(f"{it} loss_dis {trainer.loss_dis.item():.6f} loss_gen {trainer.loss_gen.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.gen.parameters()):.6f}")
