# expect-before: runs
# The sampler of sampler_module_caller, which runner.py calls as
# `train.log_weights(...)` after `import train`, here under `torch.no_grad()`:
# `.requires_grad_()` inside still makes `z` a leaf that requires grad, but
# the caller's mode covers the whole call and the sampler turns gradients on
# only inside `grad_u`: `logw` carries no graph, nothing to report.
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
        with torch.no_grad():
            logw = torch.zeros(x.size(0))
            z = torch.randn(x.size(0), 3)
        z = z.requires_grad_()
        for j in range(steps):
            t0, t1 = j / steps, (j + 1) / steps
            logw += log_f(z, x, t1) - log_f(z, x, t0)

            def grad_u(v):
                with torch.enable_grad():
                    v = v.detach().requires_grad_()
                    return grad(-log_f(v, x, t1).sum(), v)[0]
            z = leapfrog(z, grad_u)
        out.append(logw.data)
    return out


if __name__ == "__main__":
    from runner import main

    torch.manual_seed(0)
    main(ITERS)
