"""A parameter is an instance of the class every call of its function in the
file passes (names.build_names, _argument_instances)."""
import libcst as cst

from autodetach.analysis.names import build_names
from autodetach.imports import ImportTable


def table(src):
    module = cst.parse_module(src)
    return build_names(module, ImportTable.from_module(module))


HEAD = "from model import StatefulLM, Other\n\n\ndef fit(model, data):\n    return model(data)\n\n\n"


def test_every_call_passes_the_same_class():
    t = table(HEAD + "m = StatefulLM()\nfit(m, 1)\nfit(model=m, data=2)\n")
    assert "model" in t.foreign_instances
    assert "every call of `fit()`" in t.inferred["model"]


def test_a_call_passing_something_else_decides_nothing():
    t = table(HEAD + "m = StatefulLM()\nfit(m, 1)\nfit(make(), 2)\n")
    assert "model" not in t.foreign_instances


def test_two_classes_decide_nothing():
    t = table(HEAD + "m = StatefulLM()\no = Other()\nfit(m, 1)\nfit(o, 2)\n")
    assert "model" not in t.foreign_instances


def test_a_parameter_name_two_functions_share_must_agree():
    src = HEAD + "def run(model):\n    return model(0)\n\n\nm = StatefulLM()\no = Other()\nfit(m, 1)\nrun(o)\n"
    assert "model" not in table(src).foreign_instances
