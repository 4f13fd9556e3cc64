# retain_graph=True that is really needed: the gradient norm of the task loss
# w.r.t. the shared features is read with autograd.grad (retaining the graph),
# then the same loss is backwarded; and a second loss through the same
# features is backwarded after a first one that retains. One optimizer uses
# everything. Correct: no finding (dropping either retain_graph would crash).
import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    body = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
    head_a, head_b = nn.Linear(16, 3), nn.Linear(16, 1)
    opt = torch.optim.SGD(list(body.parameters()) + list(head_a.parameters()) + list(head_b.parameters()), lr=0.1)
    for step in range(6):
        x, y, t = torch.randn(16, 8), torch.randint(0, 3, (16,)), torch.randn(16, 1)
        feats = body(x)
        loss_a = F.cross_entropy(head_a(feats), y)
        loss_b = F.mse_loss(head_b(feats), t)
        (g,) = torch.autograd.grad(loss_a, feats, retain_graph=True)
        opt.zero_grad()
        loss_a.backward(retain_graph=True)
        loss_b.backward()
        opt.step()
        print(g.norm().item(), loss_a.item(), loss_b.item())


if __name__ == "__main__":
    main()
