"""AD104's note that the loss reads an argument of its function (a graph the
caller handed in) is not given for an argument read only as a count."""
from pathlib import Path

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import select_rules

SRC = """
import torch
import torch.nn as nn


def train(net, opt, data, n_steps):
    for x in data:
        loss = net(x).pow(2).mean() * {read}
        opt.zero_grad()
        loss.backward(retain_graph=True)
        opt.step()
"""


def _messages(read):
    findings, _, _ = check_source(SRC.format(read=read), "t.py", select_rules(select=["AD104"]), Options())
    return [f.message for f in findings]


@pytest.mark.parametrize("read", ["len(range(n_steps))", "float(n_steps)", "len(n_steps)"])
def test_count_argument_is_no_handed_graph(read):
    found = _messages(read)
    assert len(found) == 1 and "n_steps" not in found[0]


@pytest.mark.parametrize("read", ["n_steps", "n_steps.mean()", "len(range(3)) * n_steps"])
def test_tensor_argument_is_noted(read):
    found = _messages(read)
    assert len(found) == 1 and "the loss reads `n_steps`, an argument of `train()`" in found[0]


def test_unsafe_note_said_once():
    """AD101 marks the fix unsafe for a value from code not followed, and the caller notes do too:
    the message says so once, after every note."""
    path = Path(__file__).parent.parent / "corpus" / "AD101" / "metric_helper_star_soft" / "train.py"
    findings, _, _ = check_source(path.read_text(), str(path), select_rules(select=["AD101"]), Options())
    unsafe = "(so the fix is unsafe: check it with --verify)"
    assert findings and all(f.message.count(unsafe) == 1 and f.message.endswith(unsafe) for f in findings)
