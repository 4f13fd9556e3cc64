"""AD214 at the call sites of a Function imported from a project file:
`Clamp()(x)` becomes `Clamp.apply(x)` (safe) for a class of forward and
backward only; a class with `__init__` state, or a name used otherwise, is
reported without a fix; a class that is no autograd Function, or a Function
of a package outside the project, is left alone."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import by_code

LEGACY = """
from torch.autograd import Function

class Clamp(Function):
    def forward(self, x):
        return x.clamp(min=0)

    def backward(self, g):
        return g
"""
STATIC = LEGACY.replace("    def forward(self", "    @staticmethod\n    def forward(ctx").replace(
    "    def backward(self", "    @staticmethod\n    def backward(ctx")
WITH_INIT = """
import torch

class Scale(torch.autograd.Function):
    def __init__(self, k):
        self.k = k

    def forward(self, x):
        return x * self.k

    def backward(self, g):
        return g * self.k
"""
NOT_TORCH = """
from mylib import Function

class Clamp(Function):
    def forward(self, x):
        return x
"""


def run(tmp_path, lib, caller, fix=False):
    (tmp_path / "fns.py").write_text(textwrap.dedent(lib))
    path = tmp_path / "train.py"
    text = textwrap.dedent(caller)
    path.write_text(text)
    return check_source(text, str(path), [by_code()["AD214"]], Options(fix=fix))


def test_a_call_through_an_instance_becomes_apply(tmp_path):
    caller = "from fns import Clamp\n\ndef f(x):\n    return Clamp()(x) + 1\n"
    for lib in (LEGACY, STATIC):
        found, _, _ = run(tmp_path, lib, caller)
        assert [(f.code, f.line, f.fix) for f in found] == [("AD214", 4, "safe")]
        _, new, _ = run(tmp_path, lib, caller, fix=True)
        assert new == caller.replace("Clamp()(x)", "Clamp.apply(x)")


def test_init_state_or_other_uses_are_reported_without_a_fix(tmp_path):
    # (a file that calls no `X()(...)` and never says autograd is not read for AD214: the pre-filter)
    found, _, _ = run(tmp_path, LEGACY + WITH_INIT.replace("import torch\n", "import torch\nimport torch.autograd\n"),
                      "from fns import Clamp, Scale\n\ndef f(x):\n    return Scale(2.0)(Clamp()(x))\n")
    assert sorted((f.code, f.fix) for f in found) == [("AD214", "none"), ("AD214", "safe")]
    assert any("`__init__` holds state" in f.message and f.fix == "none" for f in found)
    found, _, _ = run(tmp_path, LEGACY, "from fns import Clamp\n\nfns = [Clamp]\n\ndef f(x):\n    return Clamp()(x)\n")
    assert [(f.code, f.fix) for f in found] == [("AD214", "none")]
    assert "used other than" in found[0].message


def test_classes_that_are_not_autograd_functions_are_left_alone(tmp_path):
    found, _, _ = run(tmp_path, NOT_TORCH, "from fns import Clamp\n\ndef f(x):\n    return Clamp()(x)\n")
    assert found == []
    module = "import torch.nn as nn\n\nclass Clamp(nn.Module):\n    def forward(self, x):\n        return x\n"
    found, _, _ = run(tmp_path, module, "from fns import Clamp\n\ndef f(x):\n    return Clamp()(x)\n")
    assert found == []
