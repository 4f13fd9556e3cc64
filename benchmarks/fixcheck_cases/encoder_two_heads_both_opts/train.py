import torch
import torch.nn.functional as F


def train(net, opt_a, opt_b, steps):
    for _ in range(steps):
        x = torch.randn(16, 8)
        ya, yb = torch.randn(16, 1), torch.randint(0, 3, (16,))
        opt_a.zero_grad()
        opt_b.zero_grad()
        feat = net(x)
        loss_a = F.mse_loss(net.head_a(feat), ya)
        loss_a.backward()
        loss_b = F.cross_entropy(net.head_b(feat), yb)
        loss_b.backward()
        opt_a.step()
        opt_b.step()
