# expect-before: runs
# The same multi-task training as flag_balancer_backwards_after_head_step,
# in the right order: the heads' gradients come from the summed loss, the
# balancer (balancer.py) backwards each task loss for the shared trunk, and
# only then do both optimizers step. The retain_graph on the first backward
# is needed: the balancer backwards the same graph again.
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
        head_grads = [p.grad.clone() for p in heads]
        balancer.step([loss_click, loss_buy])
        for p, g in zip(heads, head_grads):
            p.grad = g
        opt_shared.step()
        opt_heads.step()
        print(f"{it} click {loss_click.item():.6f} buy {loss_buy.item():.6f}")


if __name__ == "__main__":
    net = MultiTaskNet()
    data = [(torch.randn(16, 8), torch.rand(16, 1).round(), torch.rand(16, 1).round()) for _ in range(ITERS)]
    train(net, data)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
