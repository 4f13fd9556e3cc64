# expect-before: runs
# autodetach-test: unsafe
# Implicit-function gradient rerouting, as in ODE event handling: the helper
# copies the event time and state into new leaves, evaluates the event function
# handed to it, and takes two gradients of its value. The first must retain the
# graph (the second walks it again); the second is the last walk and retains it
# too, so every call keeps the event function's graph alive for nothing. The
# grads are taken for tensors the helper makes anew, so they walk nothing built
# before the call; what the event function (handed in, out of sight) builds is
# inferred to keep none of it: the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def reroute(event_fn, event_t, state_t, grad_state):
    event_t = event_t.detach().clone().requires_grad_(True)
    state_t = state_t.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        c = event_fn(event_t, state_t)
        par_dt, dstate = torch.autograd.grad(c, (event_t, state_t), retain_graph=True)
        scale = -grad_state.sum() / (par_dt.abs() + 1.0)
        dstate = torch.autograd.grad(c, state_t, scale.reshape_as(c))[0]
    return grad_state + dstate


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))

    def event_fn(t, s):
        return (net(s) * t).sum()

    state = torch.randn(4)
    t = torch.tensor(0.5)
    total = 0.0
    for step in range(ITERS):
        g = reroute(event_fn, t, state, torch.ones(4))
        state = state - 0.1 * g
        total += g.sum().item()
        print(f"{step} {g.norm().item():.6f}")
    print(f"checksum {total + state.sum().item():.6f} over {ITERS}")


if __name__ == "__main__":
    main()
