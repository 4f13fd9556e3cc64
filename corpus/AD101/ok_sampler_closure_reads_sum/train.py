# expect-before: runs
# An unrolled sampler whose path energy `energy` is summed step by step with
# its graph on purpose: the nested `start_grad` (it takes `grad`, imported
# from torch.autograd) differentiates that sum with respect to the starting
# point once the loop is done. The closure reads the sum, so the graph it
# keeps is consumed: nothing to report, and detaching it would break the
# gradient.
import os

import torch
from torch.autograd import grad

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def start_sensitivity(decoder, batches, steps=ITERS):
    out = []
    for x in batches:
        z0 = torch.randn(x.size(0), 3, requires_grad=True)
        energy = torch.zeros(x.size(0))

        def start_grad():
            return grad(energy.sum(), z0)[0]
        z = z0
        for j in range(steps):
            z = z + 0.1 * torch.tanh(decoder(z)[:, :3])
            energy += (decoder(z) - x).pow(2).sum(1)
        out.append(start_grad().norm().item())
    return out


if __name__ == "__main__":
    from runner import main

    torch.manual_seed(0)
    main(ITERS)
