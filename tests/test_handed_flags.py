"""AD104 on a `retain_graph=True` handed to a helper that passes it to its
backward (analysis/handed_flags.py): judged and dropped at the call, safe
when the helper is walked (same file), unsafe when only its summary says
what it does (another file); silent when a later backward shares the graph,
when the flag is handed by position, or when the helper reads it elsewhere."""
import textwrap

import libcst as cst
import pytest

from autodetach.analysis.handed_flags import flag_params
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

HELPER = """
def optimize(loss, optimizer, retain_graph=False):
    optimizer.zero_grad()
    loss.backward(retain_graph=retain_graph)
    optimizer.step()
"""

ALONE = """
    loss = (model(x) - y).pow(2).mean()
    optimize(loss, opt, retain_graph=True)
"""

SHARED = """
    h = model(x)
    optimize(h.mean(), opt, retain_graph=True)
    optimize(h.pow(2).mean(), opt)
"""

POSITIONAL = """
    loss = (model(x) - y).pow(2).mean()
    optimize(loss, opt, True)
"""

TRAIN = """
import torch


def train(model, batches):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in batches:
{body}
"""


def _ad104(path, text):
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def _call_line(tmp_path):
    lines = (tmp_path / "train.py").read_text().splitlines()
    return 1 + next(i for i, line in enumerate(lines) if "opt, retain_graph=True)" in line)


def _one_file(tmp_path, body, helper=HELPER):
    text = textwrap.dedent(helper) + textwrap.dedent(TRAIN).format(body=textwrap.indent(textwrap.dedent(body), " " * 8))
    path = tmp_path / "train.py"
    path.write_text(text)
    return _ad104(path, text)


def _two_files(tmp_path, body, helper=HELPER):
    (tmp_path / "optim_utils.py").write_text(textwrap.dedent(helper))
    text = "from optim_utils import optimize\n" + \
        textwrap.dedent(TRAIN).format(body=textwrap.indent(textwrap.dedent(body), " " * 8))
    path = tmp_path / "train.py"
    path.write_text(text)
    return _ad104(path, text)


def test_same_file_helper_is_judged_at_the_call_and_safe(tmp_path):
    found = _one_file(tmp_path, ALONE)
    assert [f.line for f in found] == [_call_line(tmp_path)], [f.message for f in found]
    assert "`optimize(loss, opt, retain_graph=True)`" in found[0].message
    assert "inferred" not in found[0].message


def test_helper_of_another_file_is_unsafe_and_says_why(tmp_path):
    found = _two_files(tmp_path, ALONE)
    assert [f.line for f in found] == [_call_line(tmp_path)], [f.message for f in found]
    assert "hands `retain_graph` only to its backward" in found[0].message
    assert "unsafe" in found[0].message


@pytest.mark.parametrize("where", [_one_file, _two_files])
@pytest.mark.parametrize("body", [SHARED, POSITIONAL])
def test_needed_or_positional_flags_stay_silent(tmp_path, where, body):
    assert where(tmp_path, body) == []


def test_a_flag_the_helper_reads_elsewhere_is_not_dropped(tmp_path):
    helper = HELPER.replace("    optimizer.step()", "    if not retain_graph:\n        optimizer.step()")
    assert _one_file(tmp_path, ALONE, helper) == []
    assert _two_files(tmp_path, ALONE, helper) == []


@pytest.mark.parametrize("source, expected", [
    ("def f(loss, retain_graph=False):\n    loss.backward(retain_graph=retain_graph)\n", {"retain_graph"}),
    ("def f(loss, keep=None):\n    loss.backward(retain_graph=keep)\n", {"keep"}),
    ("def f(loss, retain_graph=True):\n    loss.backward(retain_graph=retain_graph)\n", set()),
    ("def f(loss, retain_graph=False):\n    loss.backward(retain_graph=retain_graph, create_graph=True)\n", set()),
    ("def f(loss, retain_graph=False):\n    print(retain_graph)\n    loss.backward(retain_graph=retain_graph)\n",
     set()),
])
def test_flag_params(source, expected):
    func = cst.parse_module(source).body[0]
    assert set(flag_params(func)) == expected
