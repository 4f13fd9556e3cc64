# expect-before: runs
# A second-order step read from `.grad`: `backward(create_graph=True)` leaves a
# graph in every parameter's `.grad`, and two adapted copies (the model's own
# weights and a probe's) are built from it. The first outer loss must retain
# that graph: the probe's loss walks it again, and dropping the retain raises
# "Trying to backward through the graph a second time".
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def meta_step(model, probe, x, y, opt, inner_lr=0.1):
    opt.zero_grad()
    inner = ((model(x) - y) ** 2).mean()
    inner.backward(create_graph=True)
    w = model.weight - inner_lr * model.weight.grad
    v = probe - inner_lr * model.weight.grad
    opt.zero_grad()
    outer_model = ((x @ w.t() + model.bias - y) ** 2).mean()
    outer_model.backward(retain_graph=True)
    outer_probe = ((x @ v.t() - y) ** 2).mean()
    outer_probe.backward()
    opt.step()
    return outer_model.item() + outer_probe.item()


def main():
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    probe = nn.Parameter(torch.randn(2, 3))
    opt = torch.optim.SGD(list(model.parameters()) + [probe], lr=0.05)
    x, y = torch.randn(8, 3), torch.randn(8, 2)
    total = 0.0
    for _ in range(ITERS):
        total += meta_step(model, probe, x, y, opt)
    print(f"{total / ITERS:.6f}")


if __name__ == "__main__":
    main()
