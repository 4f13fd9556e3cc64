# expect-before: runs
# The gradient-surgery wrapper of flag_pack_grad_objectives.py (renamed), where the caller then
# backwards the mean of the same task losses once more (a consensus term added
# to the projected gradient): the last objective's retain is what keeps the
# shared graph alive for it, so every retain is needed.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GradSurgery:
    def __init__(self, optimizer):
        self._optim = optimizer

    def zero_grad(self):
        self._optim.zero_grad(set_to_none=True)

    def step(self):
        self._optim.step()

    def project_backward(self, objectives):
        grads = self._task_grads(objectives)
        merged = torch.stack(grads).mean(0)
        offset = 0
        for group in self._optim.param_groups:
            for p in group["params"]:
                p.grad = merged[offset:offset + p.numel()].view_as(p).clone()
                offset += p.numel()

    def _task_grads(self, objectives):
        grads = []
        for obj in objectives:
            self._optim.zero_grad(set_to_none=True)
            obj.backward(retain_graph=True)
            grads.append(torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).flatten()
                                    for g in self._optim.param_groups for p in g["params"]]))
        return grads


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(10, 16), nn.Tanh())
        self.heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(3)])

    def forward(self, x):
        h = self.trunk(x)
        return [head(h) for head in self.heads]


def train(model, optimizer, steps):
    crit = nn.MSELoss()
    for step in range(steps):
        x = torch.randn(8, 10)
        ys = [x[:, :1] * k for k in (1.0, -2.0, 0.5)]
        preds = model(x)
        losses = [crit(p, y) for p, y in zip(preds, ys)]
        optimizer.zero_grad()
        optimizer.project_backward(losses)
        (0.1 * torch.stack(losses).mean()).backward()
        optimizer.step()
        print(step, " ".join(f"{loss.item():.6f}" for loss in losses))


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Net()
    train(net, GradSurgery(torch.optim.SGD(net.parameters(), lr=0.05)), ITERS)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
