# expect-before: error modified by an inplace operation
# Multi-task training with a gradient balancer (balancer.py) on the shared
# trunk: the summed loss trains the heads first, and their optimizer steps
# before `balancer.step(...)` backwards each task loss again. Those losses
# reach the trunk only through the heads, whose weights the retained graph
# saved before the step changed them in place. Not fixed: the balanced
# backwards must run before the heads' step (or the losses be recomputed).
import os

import torch
import torch.nn.functional as F

from balancer import GradBalancer
from models import MultiTaskNet

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train(model, batches, lr=1e-2):
    shared = list(model.trunk.parameters())
    heads = list(model.head_click.parameters()) + list(model.head_buy.parameters())
    balancer = GradBalancer(shared)
    opt_shared = torch.optim.Adam(shared, lr=lr)
    opt_heads = torch.optim.Adam(heads, lr=lr)
    for it, (x, y_click, y_buy) in enumerate(batches):
        model.zero_grad()
        p_click, p_buy = model(x)
        loss_click = F.binary_cross_entropy_with_logits(p_click, y_click)
        loss_buy = F.binary_cross_entropy_with_logits(p_buy, y_buy)
        loss = loss_click + loss_buy
        loss.backward(retain_graph=True)
        opt_heads.step()
        model.zero_grad()
        balancer.step([loss_click, loss_buy])
        opt_shared.step()
        print(f"{it} click {loss_click.item():.6f} buy {loss_buy.item():.6f}")


if __name__ == "__main__":
    net = MultiTaskNet()
    data = [(torch.randn(16, 8), torch.rand(16, 1).round(), torch.rand(16, 1).round()) for _ in range(ITERS)]
    train(net, data)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
