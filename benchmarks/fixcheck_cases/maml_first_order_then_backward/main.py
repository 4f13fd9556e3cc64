# Meta-learning step that takes the inner gradient with autograd.grad (no
# retain, no create_graph) and then also backwards the same inner loss as a
# regulariser: the backward needs the graph autograd.grad freed. The
# gradients of both are used: retain_graph=True on the grad call is right.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    names = [n for n, _ in net.named_parameters()]
    for step in range(6):
        xs, ys, xq, yq = torch.randn(8, 4), torch.randn(8, 1), torch.randn(8, 4), torch.randn(8, 1)
        opt.zero_grad()
        inner = F.mse_loss(net(xs), ys)
        grads = torch.autograd.grad(inner, list(net.parameters()))
        fast = {n: p - 0.1 * g.detach() for n, p, g in zip(names, net.parameters(), grads)}
        outer = F.mse_loss(functional_call(net, fast, (xq,)), yq)
        (0.1 * inner).backward()
        outer.backward()
        opt.step()
    print(outer.item())


if __name__ == "__main__":
    main()
