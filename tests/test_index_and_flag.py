"""`if step > 0 and train:` in a method inlined with `train=True`: the side on the loop's
index has one answer on each walk of the loop (first_iteration), the flag is known, so
the walk takes one arm (HyperStyle's coach re-leafs its carried output only when training)."""
from pathlib import Path

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

CASE = Path(__file__).resolve().parent.parent / "corpus" / "AD106" / "ok_refine_releafed_when_training.py"


def _codes(src: str):
    findings, _, _ = check_source(src, "coach.py", all_rules(), Options(unsafe=True))
    return [f.code for f in findings]


def test_releafed_from_the_second_step_when_training():
    assert _codes(CASE.read_text()) == []


def test_releafed_only_when_not_training_is_still_reported():
    src = CASE.read_text().replace("if step > 0 and train:", "if step > 0 and not train:")
    assert "and not train" in src
    assert "AD106" in _codes(src)


def test_flag_given_false_takes_no_arm_that_is_not_walked():
    # `train=False` at the only training call: the re-leaf never runs, nor the backward in the method
    src = CASE.read_text().replace("loss = self.refine(x, train=True)", "loss = self.refine(x, train=False)\n"
                                   "            loss.backward()")
    assert "train=False)" in src
    assert "AD106" not in _codes(src)
