import torch
from torch import nn


def train(model, heads, optimizer, tasks, steps):
    shared = list(model.parameters())
    for step in range(steps):
        x = torch.randn(8, 10)
        h = model(x)
        losses = [((heads[t](h) - x[:, k:k + 1]) ** 2).mean() for k, t in enumerate(tasks)]
        optimizer.zero_grad()
        grads = []
        for i, task in enumerate(tasks):
            losses[i].backward(retain_graph=True)
            grads.append([p.grad.clone() for p in shared])
            for p in shared:
                p.grad = None
        for p, parts in zip(shared, zip(*grads)):
            p.grad = torch.stack(parts).mean(0)
        optimizer.step()
        print(step, sum(loss.item() for loss in losses))


if __name__ == "__main__":
    trunk = nn.Sequential(nn.Linear(10, 16), nn.ReLU())
    heads = nn.ModuleDict({name: nn.Linear(16, 1) for name in ("seg", "depth", "normal")})
    opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.05)
    train(trunk, heads, opt, ["seg", "depth", "normal"], 5)
