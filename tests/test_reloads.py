"""AD108: `net.load_state_dict(saved)` overwrites the parameters in place
like a step (analysis/reloads.py), and a helper's module parameter stands for
the module its callers hand it (meta-learning: PAML's MAML.py)."""
import textwrap

import libcst as cst

from autodetach.context import FileContext
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

HEAD = """
import copy
import torch
from torch import nn


def adapt(model, optimizer, x):
    optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    optimizer.step()
    return model(x).pow(2).mean()


net = nn.Linear(4, 1)
inner = torch.optim.SGD(net.parameters(), lr=0.1)
meta = torch.optim.SGD(net.parameters(), lr=0.1)
"""

META = HEAD + """
for it in range(3):
    start = copy.deepcopy(net.state_dict())
    batch_loss = 0
    for task in range(2):
        batch_loss += adapt(net, inner, torch.randn(2, 4))
        {reload}
    meta.zero_grad()
    batch_loss.backward()
    meta.step()
"""


def _found(src):
    findings, _, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options())
    return [f for f in findings if f.code == "AD108"]


def test_losses_summed_across_reloads_are_stale():
    found = _found(META.format(reload="net.load_state_dict(start)"))
    assert [(f.line, f.fix) for f in found] == [(25, "none")]
    assert "`net.load_state_dict(start)` (line 23, in the loop before it) copied saved values" in found[0].message


def test_inner_steps_of_a_helper_handed_the_model_are_steps_of_it():
    # no reload: the next task's inner step, run by `adapt` on its `model`, which is `net`
    found = _found(META.format(reload="pass"))
    assert [(f.line, f.fix) for f in found] == [(25, "none")]
    assert "`inner.step()`" in found[0].message or "`optimizer.step()`" in found[0].message


def test_reload_after_the_backward_is_fine():
    src = HEAD + """
best = copy.deepcopy(net.state_dict())
for it in range(3):
    loss = net(torch.randn(2, 4)).pow(2).mean()
    meta.zero_grad()
    loss.backward()
    meta.step()
    if loss.item() > 1.0:
        net.load_state_dict(best)
"""
    assert not _found(src)


def test_target_network_reloaded_under_no_grad_is_fine():
    src = """
import torch
from torch import nn

q, target = nn.Linear(4, 2), nn.Linear(4, 2)
opt = torch.optim.SGD(q.parameters(), lr=0.1)
for step in range(6):
    s, s2 = torch.randn(3, 4), torch.randn(3, 4)
    with torch.no_grad():
        y = target(s2).max(1)[0]
    loss = (q(s).max(1)[0] - y).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 0:
        target.load_state_dict(q.state_dict())
"""
    assert not _found(src)


def test_a_parameter_handed_two_modules_stands_for_neither():
    src = textwrap.dedent(HEAD + """
other = nn.Linear(4, 1)
for x in [torch.randn(2, 4)] * 2:
    a = adapt(net, inner, x)
    b = adapt(other, inner, x)
""")
    ctx = FileContext(cst.parse_module(src), "case.py", src)
    from autodetach.analysis.reloads import callers_module

    ctx.analysis.scopes  # walk
    assert ctx.analysis.table("handed_modules")["model"] == {"net", "other"}
    assert callers_module(ctx.analysis, "model") == []
