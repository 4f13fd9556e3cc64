# expect-before: runs
# Learned inputs (dataset distillation): a method creates one requires_grad tensor per
# step in a loop and keeps them in lists that the optimizer trains. Leaves have no graph
# behind them; detaching what the lists hold would stop them learning.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Distiller:
    def __init__(self, model, steps, per_step):
        self.model = model
        self.steps = steps
        self.per_step = per_step
        self.init_data()

    def init_data(self):
        self.params = []
        self.data = []
        self.labels = []
        for step in range(self.steps):
            images = torch.randn(self.per_step, 6, requires_grad=True)
            self.data.append(images)
            self.params.append(images)
            self.labels.append(torch.arange(self.per_step) % 3)
        self.raw_lr = torch.full((self.steps,), -2.0, requires_grad=True)
        self.params.append(self.raw_lr)
        self.optimizer = torch.optim.Adam(self.params, lr=0.05)

    def unrolled_loss(self, real_x, real_y):
        weight = self.model.weight.detach().clone().requires_grad_()
        for images, labels, raw in zip(self.data, self.labels, self.raw_lr.unbind()):
            inner = F.cross_entropy(images @ weight.t(), labels)
            grad, = torch.autograd.grad(inner, weight, create_graph=True)
            weight = weight - F.softplus(raw) * grad
        return F.cross_entropy(real_x @ weight.t(), real_y)

    def train(self, real_x, real_y):
        for it in range(ITERS):
            loss = self.unrolled_loss(real_x, real_y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            print(f"{it} {loss.item():.6f}")
        print(f"checksum {sum(p.sum().item() for p in self.params):.6f}")


torch.manual_seed(0)
distiller = Distiller(nn.Linear(6, 3, bias=False), steps=3, per_step=6)
distiller.train(torch.randn(32, 6), torch.randint(0, 3, (32,)))
