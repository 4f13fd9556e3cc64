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


PGGAN_SHAPE = """
import torch


class GAN:
    def __init__(self, G, D):
        self.G, self.D = G, D
        self.optim_G = torch.optim.Adam(G.parameters())
        self.optim_D = torch.optim.Adam(D.parameters())

    def forward_D(self, z, real):
        self.fake = self.G(z)
        self.d_real, self.d_fake = self.D(real), self.D(self.fake)

    def forward_G(self):
        self.d_fake = self.D(self.fake)

    def compute_D_loss(self):
        return self.d_fake.mean() - self.d_real.mean()

    def compute_G_loss(self):
        return -self.d_fake.mean()

    def backward_D(self, retain_graph=False):
        d_loss = self.compute_D_loss()
        d_loss.backward(retain_graph=retain_graph)
        self.optim_D.step()

    def backward_G(self):
        g_loss = self.compute_G_loss()
        g_loss.backward()
        self.optim_G.step()

    def train(self, batches):
        for z, real in batches:
            self.forward_D(z, real)
            self.optim_D.zero_grad()
            self.backward_D(retain_graph=True)
            self.optim_G.zero_grad()
            self.forward_G()
            self.backward_G()
"""


def test_a_helper_building_its_own_loss_is_not_judged_at_the_call(tmp_path):
    # the D loss walks `self.fake`'s generator graph, which backward_G needs again: the retain is needed
    path = tmp_path / "gan.py"
    path.write_text(PGGAN_SHAPE)
    assert _ad104(path, PGGAN_SHAPE) == []


def test_flag_of_a_loss_the_helper_builds():
    source = ("def f(self, retain_graph=False):\n    loss = self.compute()\n"
              "    loss.backward(retain_graph=retain_graph)\n")
    assert flag_params(cst.parse_module(source).body[0]) == frozenset()
