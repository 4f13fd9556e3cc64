# expect-before: runs
# autodetach-test: unsafe
# An annealed importance sampler: each step adds the change of the log density
# between two temperatures into the log weight `logw`, the densities computed by
# the decoder on the current sample, a tensor that requires grad. The only
# gradient taken is the sampler's own, inside the nested `grad_u` (imported as
# `grad`), handed to the leapfrog helper: it never reads `logw`. So `logw` keeps
# every step's decoder graph until the batch ends. That no caller runs the
# sampler under `torch.no_grad()` or backwards its result is inferred from
# reading runner.py: the fix is offered as unsafe.
import os

import torch
from torch.autograd import grad

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def leapfrog(z, grad_u, eps=0.05):
    z = z - eps * grad_u(z)
    return z.detach().requires_grad_()


def log_weights(decoder, batches, steps=ITERS):
    def log_f(z, x, t):
        prior = -0.5 * z.pow(2).sum(1)
        return prior - t * (decoder(z) - x).pow(2).sum(1)

    out = []
    for x in batches:
        logw = torch.zeros(x.size(0))
        z = torch.randn(x.size(0), 3, requires_grad=True)
        for j in range(steps):
            t0, t1 = j / steps, (j + 1) / steps
            logw += log_f(z, x, t1) - log_f(z, x, t0)

            def grad_u(v):
                return grad(-log_f(v, x, t1).sum(), v)[0]
            z = leapfrog(z, grad_u)
        out.append(logw.data)
    return out


if __name__ == "__main__":
    from runner import main

    torch.manual_seed(0)
    main(ITERS)
