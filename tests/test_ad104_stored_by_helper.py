"""AD104's drop of retain_graph=True is unsafe when the loss reads an attribute that
another method stores from what its callers pass (`self.aux_loss = aux_loss * alpha`)
and the loop does not call that method: a graph stored there once would be walked
again by every later backward (DeepCTR's base model, whose subclasses out of sight
call `add_auxiliary_loss`)."""
from pathlib import Path

from autodetach.engine import Options, check_source
from autodetach.findings import UNSAFE
from autodetach.registry import all_rules

CASE = Path(__file__).resolve().parent.parent / "corpus" / "AD104" / "aux_loss_stored_by_helper.py"
NOTE = "is stored by `add_auxiliary_loss()` from what its callers pass"


def _ad104(src: str):
    findings, _, _ = check_source(src, "model.py", all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_AD104_attribute_stored_by_an_uncalled_helper_makes_the_drop_unsafe():
    found = _ad104(CASE.read_text())
    assert len(found) == 1 and found[0].fix == UNSAFE and NOTE in found[0].message, \
        [(f.fix, f.message) for f in found]


def test_AD104_helper_called_by_the_loop_adds_no_such_note():
    src = CASE.read_text().replace(
        "            y_pred = self(x)\n",
        "            y_pred = self(x)\n            self.add_auxiliary_loss(y_pred.pow(2).mean(), 0.1)\n")
    assert "self.add_auxiliary_loss(" in src
    assert all(NOTE not in f.message for f in _ad104(src))
