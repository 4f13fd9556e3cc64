# expect-before: runs
# A graph built once before the loop (a normalised weight), backwarded by one
# arm of an `if` on even steps and by the other on odd steps: the next
# iteration's other arm walks the same graph again, so each arm's retain is
# needed. Left alone.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
weight = torch.randn(4, 1, requires_grad=True)
w = weight / weight.norm()
total = 0.0
for step in range(ITERS):
    x = torch.randn(8, 4)
    weight.grad = None
    if step % 2 == 0:
        (x @ w).pow(2).mean().backward(retain_graph=True)
    else:
        (x @ w).abs().mean().backward(retain_graph=True)
    total += weight.grad.sum().item()
    print(f"{step} {weight.grad.norm().item():.6f}")
print(f"checksum {total:.6f} over {ITERS}")
