"""A module's forward that backwards a loss and returns a value built on the
graph that backward freed (analysis/forward_frees.py, reported by AD105)."""
import os

from autodetach.engine import Options, check_source
from autodetach.findings import UNSAFE
from autodetach.registry import all_rules

CORPUS = os.path.join(os.path.dirname(__file__), "..", "corpus", "AD105")


def _ad105(name):
    path = os.path.join(CORPUS, name)
    with open(path, encoding="utf-8") as f:
        findings, _, _ = check_source(f.read(), path, all_rules(), Options())
    return [f for f in findings if f.code == "AD105"]


def test_forward_backward_freeing_its_output_is_reported_with_an_unsafe_retain():
    found = _ad105("forward_backward_frees_output.py")
    assert [f.line for f in found] == [29], [(f.line, f.message[:80]) for f in found]
    assert found[0].fix == UNSAFE
    assert "Quantizer.forward" in found[0].message and "inferred" in found[0].message


def test_forward_backward_on_detached_input_is_silent():
    assert _ad105("ok_forward_backward_detached_input.py") == []
