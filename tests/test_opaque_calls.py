"""A later call the walk cannot see into, given a part of a retained graph,
may backward it: dropping the retain is never a safe fix there
(analysis/opaque_calls.py). Each of these programs needs its retain."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.findings import SAFE
from autodetach.registry import by_code

PROGRAM = """
import functools
import torch


def aux_backward(t):
    (t ** 2).mean().backward()


def call_with(fn, *args):
    return fn(*args)


hooks = [aux_backward]
handlers = {{"aux": aux_backward}}
later = []
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    out = model(torch.randn(8, 3))
    opt.zero_grad()
    (out ** 2).mean().backward(retain_graph=True)
    {second}
    opt.step()
"""

SECONDS = [
    "hooks[0](out)",
    "handlers['aux'](out)",
    "functools.partial(aux_backward, out)()",
    "list(map(aux_backward, [out]))",
    "call_with(aux_backward, out)",
    "opt.step(lambda: out.mean().backward())",
    "later.append(lambda: out.mean().backward())\n    later.pop()()",
    "exec('out.mean().backward()')",
]


@pytest.mark.parametrize("second", SECONDS, ids=[s.split("(")[0].split("\n")[0] for s in SECONDS])
def test_AD104_no_safe_drop_before_opaque_call(second):
    text = textwrap.dedent(PROGRAM).format(second=second)
    found, _, _ = check_source(text, "train.py", [by_code()["AD104"]], Options())
    assert [f for f in found if f.fix == SAFE] == [], [f.message for f in found]


def test_AD104_opaque_call_named_in_message():
    text = textwrap.dedent(PROGRAM).format(second="hooks[0](out)")
    found, _, _ = check_source(text, "train.py", [by_code()["AD104"]], Options())
    assert found and "`hooks[0](out)` (line" in found[0].message


ACCUMULATED = """
import functools
import torch


def aux_backward(t):
    t.mean().backward()


hooks = [aux_backward]
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
history = []
for step in range(3):
    loss = ((model(torch.randn(8, 3)) - 1) ** 2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
    history.append(loss)
kept = torch.stack(history)
{second}
"""


@pytest.mark.parametrize("second", ["hooks[0](kept)", "functools.partial(aux_backward, kept)()",
                                    "list(map(aux_backward, [kept]))"])
def test_AD102_no_safe_cut_before_opaque_call(second):
    """The kept losses are backwarded by code the walk does not follow: a cut would stop that."""
    text = textwrap.dedent(ACCUMULATED).format(second=second)
    found, _, _ = check_source(text, "train.py", [by_code()["AD102"]], Options())
    assert found and [f for f in found if f.fix == SAFE] == [], [(f.fix, f.message) for f in found]
