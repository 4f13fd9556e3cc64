# expect-before: runs
# A normalizing flow whose inverse pass is a method named `backward`, as many
# flow libraries name it: `z, ld = flow.backward(z)` is a module call that
# returns values, not autograd's `Tensor.backward()` (which returns None), so
# the loop in `NormalizingFlow.backward` is not a training loop. Its list of
# intermediate values is returned and the training loss reads the last one
# through the inverse: a `.detach()` there would cut that term from the model.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class AffineFlow(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.s = nn.Parameter(torch.zeros(dim))
        self.t = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        return x * torch.exp(self.s) + self.t, self.s.sum().expand(x.size(0))

    def backward(self, z):
        return (z - self.t) * torch.exp(-self.s), -self.s.sum().expand(z.size(0))


class NormalizingFlow(nn.Module):
    def __init__(self, flows):
        super().__init__()
        self.flows = nn.ModuleList(flows)

    def forward(self, x):
        log_det = torch.zeros(x.size(0))
        zs = [x]
        for flow in self.flows:
            x, ld = flow.forward(x)
            log_det += ld
            zs.append(x)
        return zs, log_det

    def backward(self, z):
        log_det = torch.zeros(z.size(0))
        xs = [z]
        for flow in self.flows[::-1]:
            z, ld = flow.backward(z)
            log_det += ld
            xs.append(z)
        return xs, log_det


def train(model, data, optimizer):
    for i, x in enumerate(data):
        zs, log_det = model(x)
        nll = (0.5 * zs[-1].pow(2).sum(1) - log_det).mean()
        xs, _ = model.backward(zs[-1] + 0.1)
        loss = nll + (xs[-1] - x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{i} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = NormalizingFlow([AffineFlow(3) for _ in range(3)])
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    train(model, [torch.randn(16, 3) for _ in range(ITERS)], opt)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
