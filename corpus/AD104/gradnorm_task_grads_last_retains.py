# expect-before: runs
# autodetach-test: unsafe
# GradNorm: the weighted sum of the task losses is backwarded with
# retain_graph=True, then the gradient of each task loss with respect to the
# shared layer is taken, each walking the same graph again: every task but the
# last needs its retain. The last one retains too, and what follows reads none
# of that graph: the gradients come without create_graph, and the GradNorm
# loss reads the task losses only through `.item()`. The losses are handed in
# by the caller, which is inferred not to backward them again (it only reads
# `.item()` here; callers out of sight may), so the fix is unsafe.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def gradnorm(losses, weights, shared, initial, alpha=0.5):
    total = 0
    for loss_i, w_i in zip(losses, weights):
        total = total + loss_i * w_i
    total.backward(retain_graph=True)
    for w_i in weights:
        w_i.grad = None
    norms, ratios = [], []
    for i in range(len(losses)):
        g = torch.autograd.grad(losses[i], shared, retain_graph=True)
        norms.append((weights[i] * g[0]).norm())
        ratios.append(losses[i].item() / initial[i])
    norms = torch.stack(norms)
    target = norms.detach().mean() * (sum(ratios) / len(ratios)) ** alpha
    gn_loss = (norms - target).abs().sum()
    grads = torch.autograd.grad(gn_loss, list(weights))
    for w_i, g_w in zip(weights, grads):
        w_i.grad = g_w


trunk = nn.Linear(6, 8)
heads = nn.ModuleList([nn.Linear(8, 1) for _ in range(2)])
weights = nn.ParameterList([nn.Parameter(torch.ones(1)) for _ in range(2)])
opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters(), *weights.parameters()], lr=0.05)
initial = None
for step in range(ITERS):
    x = torch.randn(5, 6)
    h = torch.tanh(trunk(x))
    losses = [(head(h) - k).pow(2).mean() for k, head in enumerate(heads)]
    if initial is None:
        initial = [loss.item() for loss in losses]
    opt.zero_grad()
    gradnorm(losses, weights, trunk.weight, initial)
    opt.step()
    print(step, " ".join(f"{loss.item():.6f}" for loss in losses))
print(f"checksum {sum(p.sum().item() for p in trunk.parameters()):.6f} {sum(w.item() for w in weights):.6f}")
