# expect-before: runs
# autodetach-test: unsafe
# An annealed importance sampler that runner.py calls as `train.log_weights(...)`
# after `import train`. Its set-up runs under `torch.no_grad()`, but the loop
# does not: the log weight `logw` sums each step's change of the decoder's log
# density on `z`, made a leaf that requires grad with `.requires_grad_()`, so it
# keeps every step's graph until the batch ends. The sampler's own gradient is
# taken inside the nested `grad_u` and never reads `logw`. That no caller runs
# the sampler under `torch.no_grad()` or backwards its result is inferred from
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
        with torch.no_grad():
            logw = torch.zeros(x.size(0))
            z = torch.randn(x.size(0), 3)
        z = z.requires_grad_()
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
