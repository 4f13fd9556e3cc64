# expect-before: runs
# Meta-learning step (MAML-like) in a trainer method: for each meta-train
# task the inner gradients are taken with `autograd.grad(retain_graph=True)`
# and the meta-test loss on the adapted weights is kept with its graph in a
# list. The list is made again at every call, no optimizer steps inside the
# task loop, and the backward after it needs every task's graph (retained for
# a penalty on the shared features): the tasks are parts of one step, not
# iterations of training.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class MetaTrainer:
    def __init__(self, dim, tasks):
        self.encoder = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        self.net = nn.Linear(dim, 1)
        self.opt = torch.optim.SGD(list(self.encoder.parameters()) + list(self.net.parameters()), lr=0.05)
        self.tasks = tasks
        self.inner_lr = 0.1

    def task_loss(self, x, task, weight=None, bias=None):
        w = self.net.weight if weight is None else weight
        b = self.net.bias if bias is None else bias
        return F.mse_loss(F.linear(x, w, b), x[:, task:task + 1].detach())

    def update(self, x):
        self.opt.zero_grad()
        feats = self.encoder(x)
        meta_losses = []
        for task in self.tasks:
            inner = self.task_loss(feats, task)
            g_w, g_b = torch.autograd.grad(inner, [self.net.weight, self.net.bias], retain_graph=True)
            fast_w = self.net.weight - self.inner_lr * g_w
            fast_b = self.net.bias - self.inner_lr * g_b
            meta_losses.append(self.task_loss(feats, task, fast_w, fast_b))
        loss = torch.stack(meta_losses).mean()
        loss.backward(retain_graph=True)  # the feature penalty below walks the encoder again
        penalty = 0.01 * feats.pow(2).mean()
        penalty.backward()
        self.opt.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    trainer = MetaTrainer(6, [0, 2, 4])
    for it in range(ITERS):
        print(f"{it} meta {trainer.update(torch.randn(8, 6)):.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.net.parameters()):.6f}")


if __name__ == "__main__":
    main()
