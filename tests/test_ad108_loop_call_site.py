"""AD108: a loop that hands a shared step helper (called from several places)
a graph built before the loop is reported at the call in the loop as well as
at the helper's backward (symbolic_simplifier's enforce_encoding calls, whose
`__train` other methods call too)."""
from pathlib import Path

from autodetach.engine import Options, check_source
from autodetach.findings import NONE
from autodetach.registry import all_rules

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "AD108"


def _ad108(source: str):
    findings, _, _ = check_source(source, "trainer.py", all_rules(), Options())
    return sorted((f.line, f.fix, f.message) for f in findings if f.code == "AD108")


def test_the_call_in_the_loop_is_reported():
    found = _ad108((CORPUS / "flag_encoding_reused_shared_update.py").read_text())
    assert [line for line, _, _ in found] == [29, 51], found
    line, fix, message = found[1]
    assert fix == NONE and "in `_update`, which other code calls too" in message


def test_a_helper_with_one_caller_is_reported_at_its_backward_only():
    found = _ad108((CORPUS / "flag_encoding_reused_through_helper_methods.py").read_text())
    assert [line for line, _, _ in found] == [27], found


def test_a_graph_rebuilt_in_each_call_is_silent():
    assert _ad108((CORPUS / "ok_encoding_recomputed_shared_update.py").read_text()) == []
