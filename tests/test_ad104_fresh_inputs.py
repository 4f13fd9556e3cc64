"""AD104 on a grad for tensors its function makes anew (analysis/fresh_inputs.py),
and on a retain whose only later backward is in the other arm of its `if`."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

REROUTE = """
import torch


def reroute(event_fn, event_t, state_t, grad_state):
    event_t = event_t.detach().clone().requires_grad_(True)
    state_t = state_t.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        c = event_fn(event_t, state_t)
        par_dt, dstate = torch.autograd.grad(c, (event_t, state_t), retain_graph=True)
        dstate = torch.autograd.grad(c, state_t, -grad_state / par_dt, retain_graph=True)[0]
    return grad_state + dstate
"""


def _ad104(src):
    findings, _, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_last_grad_of_a_value_built_from_new_leaves_is_unneeded_and_unsafe():
    found = _ad104(REROUTE)
    assert [(f.line, f.fix) for f in found] == [(11, "unsafe")]
    assert "`event_fn(event_t, state_t)`" in found[0].message and "inferred" in found[0].message


def test_inline_target_of_a_reshaped_input():
    src = """
        import torch


        def dynamics(loss_fn, t, a, n):
            x = a[:n].reshape(n, 1)
            x = x.requires_grad_(True)
            with torch.set_grad_enabled(True):
                dg = torch.autograd.grad(loss_fn(t, x).sum(), x, retain_graph=True)[0]
            return a[n:] - dg.flatten()
    """
    assert [f.line for f in _ad104(src)] == [9]


def test_value_handed_back_keeps_the_retain():
    src = REROUTE.replace("return grad_state + dstate", "return grad_state + dstate, c")
    assert src != REROUTE
    assert _ad104(src) == []


def test_value_stored_or_walked_again_keeps_the_retain():
    stored = REROUTE.replace("    return grad_state", "    self_cache.append(c)\n    return grad_state")
    walked = REROUTE.replace("    return grad_state", "    c.backward()\n    return grad_state")
    assert stored != REROUTE and walked != REROUTE
    assert _ad104(stored) == [] and _ad104(walked) == []


def test_a_sibling_of_the_value_walked_later_keeps_the_retain():
    # `aux` comes out of the same call as `c`: a grad of it may walk the same graph
    extra = "    extra = torch.autograd.grad(aux, state_t)[0]\n    return grad_state + dstate + extra"
    src = REROUTE.replace("c = event_fn(event_t, state_t)", "c, aux = event_fn(event_t, state_t)").replace(
        "    return grad_state + dstate", extra)
    assert "extra" in src and "c, aux" in src
    assert _ad104(src) == []


def test_inputs_handed_in_are_not_new():
    # `state_t` is the caller's tensor: the grad may walk a graph the caller built and walks again
    src = REROUTE.replace("    state_t = state_t.detach().clone().requires_grad_(True)\n", "")
    assert src != REROUTE
    assert _ad104(src) == []


def test_input_made_new_in_one_arm_only_is_not_new():
    one_arm = "    if event_t.numel():\n        state_t = state_t.detach()"
    src = REROUTE.replace("    state_t = state_t.detach()", one_arm)
    assert src != REROUTE
    assert _ad104(src) == []


ARMS = """
import torch
from torch import nn

net = nn.Linear(4, 2)
for step in range(3):
    out = net(torch.randn(1, 4)).reshape(-1)
    net.zero_grad()
    if step > 5:
        out[0].backward(retain_graph=True)
    else:
        out.sum().backward()
"""


def test_a_backward_in_the_other_arm_does_not_need_the_retain():
    assert [(f.line, f.fix) for f in _ad104(ARMS)] == [(10, "safe")]


def test_a_backward_after_the_if_still_needs_it():
    src = ARMS + "    out.mean().backward()\n"
    assert _ad104(src) == []


def test_a_helper_called_twice_runs_both_arms_on_one_graph():
    src = """
        import torch
        from torch import nn

        net = nn.Linear(4, 2)


        def push(loss, first):
            if first:
                loss.backward(retain_graph=True)
            else:
                loss.backward()


        for step in range(3):
            loss = net(torch.randn(1, 4)).sum()
            push(loss, True)
            push(loss, False)
    """
    assert _ad104(src) == []
