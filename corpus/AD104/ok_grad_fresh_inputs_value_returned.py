# expect-before: runs
# Implicit-function gradient rerouting whose helper also hands back the event
# value: the caller trains the event network through it after the helper's
# second grad, so that grad's retain_graph=True is what lets the caller's
# backward run. Left alone.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def reroute_keep_value(event_fn, event_t, state_t, grad_state):
    event_t = event_t.detach().clone().requires_grad_(True)
    state_t = state_t.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        c = event_fn(event_t, state_t)
        par_dt, dstate = torch.autograd.grad(c, (event_t, state_t), retain_graph=True)
        scale = -grad_state.sum() / (par_dt.abs() + 1.0)
        dstate = torch.autograd.grad(c, state_t, scale.reshape_as(c), retain_graph=True)[0]
    return grad_state + dstate, c


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)

    def event_fn(t, s):
        return (net(s) * t).sum()

    state = torch.randn(4)
    t = torch.tensor(0.5)
    for step in range(ITERS):
        g, c = reroute_keep_value(event_fn, t, state, torch.ones(4))
        opt.zero_grad()
        c.pow(2).backward()
        opt.step()
        state = state - 0.1 * g
        print(f"{step} {g.norm().item():.6f} {c.item():.6f}")
    print(f"checksum {state.sum().item():.6f} over {ITERS}")


if __name__ == "__main__":
    main()
