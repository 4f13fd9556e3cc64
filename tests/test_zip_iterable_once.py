"""A call written among the arguments of the `zip(...)` a for loop iterates
runs once, before the loop: `torch.autograd.grad(loss, params)` there frees
the graph once, and is no second walk of it (AD105 said it was)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

STEP = """
import torch
from torch import nn


def step(model, x, opt, lr=0.1):
    loss = model(x).pow(2).mean()
    params = list(model.parameters())
    for p, g in {iterable}:
        with torch.no_grad():
            p.sub_(lr * g)
{after}

net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for i in range(3):
    step(net, torch.randn(2, 4), opt)
"""

AFTER = """    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def _found(src):
    found, _, _ = check_source(textwrap.dedent(src), "t.py", all_rules(), Options())
    return [(f.code, f.line, f.message) for f in found if f.code.startswith("AD1")]


def test_a_gradient_call_in_the_zipped_iterable_walks_the_graph_once():
    assert _found(STEP.format(iterable="zip(params, torch.autograd.grad(loss, params))", after="")) == []
    assert _found(STEP.format(iterable="enumerate(zip(params, torch.autograd.grad(loss, params)))",
                              after="").replace("for p, g in", "for i, (p, g) in")) == []


def test_a_backward_after_the_loop_still_needs_the_freed_graph():
    found = _found(STEP.format(iterable="zip(params, torch.autograd.grad(loss, params))", after=AFTER))
    assert [(code, line) for code, line, _ in found] == [("AD105", 9)]
    assert "which `loss.backward()`" in found[0][2]
