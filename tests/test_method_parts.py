"""Which parts of a module `model.meth(...)` runs (analysis/method_parts.py),
and what that changes: a graph built by `model.generate(z)` does not hold
`model.disc`, so a step of `model.disc` neither makes it stale (AD108) nor
leaves the owner of its gradients unknown (AD105 instead of AD103)."""
import os
import textwrap

import libcst as cst
import pytest

from autodetach.analysis.method_parts import method_parts
from autodetach.context import FileContext
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CLASS = """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self, net=None):
        super().__init__()
        self.mapping = nn.Linear(4, 4)
        self.synthesis = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.disc = nn.Linear(8, 1)
        self.scale = 0.5
{extra}
    def forward(self, z):
        return self.disc(self.generate(z))

    def generate(self, z):
        return self.synthesis(self.scale * self.mapping(z))
{methods}
model = Net()
"""


def _parts(meth, methods="", extra=""):
    src = textwrap.dedent(CLASS).format(methods=textwrap.indent(textwrap.dedent(methods), "    "),
                                        extra=textwrap.indent(textwrap.dedent(extra), "        "))
    ctx = FileContext(cst.parse_module(src), "case.py", src)
    return method_parts(ctx.analysis, "model", meth)


def test_a_method_runs_the_layers_it_reads_and_the_methods_it_calls():
    assert _parts("generate") == {"model.mapping", "model.synthesis"}
    assert _parts("forward") == {"model.mapping", "model.synthesis", "model.disc"}
    assert _parts("disc") == {"model.disc"}
    assert _parts("score", """
        def score(self, z):
            return self(z)
    """) == {"model.mapping", "model.synthesis", "model.disc"}


@pytest.mark.parametrize("methods, extra", [
    ("def leak(self, z):\n    return run(self, z)\n", ""),  # self handed on
    ("def leak(self, z):\n    return getattr(self, 'disc')(z)\n", ""),
    ("def leak(self, z):\n    return super().forward(z)\n", ""),
    ("def leak(self, z):\n    return self.net(z)\n", "self.net = net\n"),  # a module handed in
    ("def leak(self, z):\n    return z * self.w\n", "self.w = nn.Parameter(torch.ones(4))\n"),
    ("def leak(self, z):\n    return self.mapping(z) + self.offset\n", ""),  # never assigned here
    ("@torch.no_grad()\ndef leak(self, z):\n    return self.mapping(z)\n", ""),
])
def test_uses_it_cannot_read_answer_none(methods, extra):
    assert _parts("leak", methods, extra) is None


def test_a_subclass_of_a_local_class_answers_none():
    src = textwrap.dedent(CLASS).format(methods="", extra="") + textwrap.dedent("""
        class Big(Net):
            def generate(self, z):
                return self.synthesis(z)

        big = Big()
    """)
    ctx = FileContext(cst.parse_module(src), "case.py", src)
    assert method_parts(ctx.analysis, "big", "generate") is None


def _codes(path):
    with open(os.path.join(ROOT, "corpus", *path.split("/")), encoding="utf-8") as fh:
        src = fh.read()
    findings, _, _ = check_source(src, "case.py", all_rules(), Options())
    return sorted(f.code for f in findings)


def test_generate_method_graph_is_detached_in_the_d_step_not_recomputed():
    assert _codes("AD103/gan_wrapper_generate_method.py") == ["AD103"]
    assert _codes("AD108/ok_wrapper_generate_method.py") == []


def test_a_wrapper_part_on_raw_noise_is_not_stale_after_a_step():
    # `model.gen` is `self.gen = nn.Sequential(nn.Linear(4, 8), nn.Tanh())`: fed noise, it saves no weight
    assert _codes("AD105/wrapper_part_on_noise_step_between.py") == ["AD105"]
