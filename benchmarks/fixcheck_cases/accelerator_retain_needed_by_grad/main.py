# accelerator.backward(loss, retain_graph=True) looks like the last backward
# of the iteration, but the same graph is used afterwards by a gradient-norm
# penalty in losses.py (torch.autograd.grad on the same output). Dropping
# the retain_graph (an AD104-style fix) would crash. Correct: leave it.
import torch
import torch.nn as nn

from accel import Accelerator
from losses import grad_norm_penalty


def main():
    torch.manual_seed(0)
    accelerator = Accelerator()
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    model, opt = accelerator.prepare(model, opt)
    for _ in range(6):
        x = torch.randn(16, 8, requires_grad=True)
        out = model(x)
        loss = out.pow(2).mean()
        opt.zero_grad()
        accelerator.backward(loss, retain_graph=True)
        penalty = grad_norm_penalty(out, x)
        accelerator.backward(penalty)
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
