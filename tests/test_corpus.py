"""Every corpus pair under real torch: the fix gives exactly the .fixed file,
settles, and the fixed script runs; where the original runs too, both print
the same numbers. Negatives (no .fixed file) get no finding and run."""
import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import by_code

from .corpus import cases, run_script

CASES = [pytest.param(c, id=f"{c.code}/{c.name}") for c in cases()]


def _read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _fix(case, text):
    rule = by_code()[case.code]
    unsafe = "# autodetach-test: unsafe" in _read(case.before)
    return check_source(text, case.before, [rule], Options(fix=True, unsafe=unsafe))


@pytest.mark.parametrize("case", CASES)
def test_fix_matches_corpus(case):
    before = _read(case.before)
    rule = by_code()[case.code]
    found, _, _ = check_source(before, case.before, [rule], Options())
    if case.report_only:
        assert any(f.code == case.code for f in found), f"{case.code} not reported"
        _, new, _ = _fix(case, before)
        assert new is None, "a report-only rule changed the file"
        return
    if not case.positive:
        assert [f for f in found if f.code == case.code] == [], [f.message for f in found]
        return
    assert any(f.code == case.code for f in found), f"{case.code} not reported"
    _, new, _ = _fix(case, before)
    assert new == _read(case.after)
    _, again, _ = _fix(case, new)
    assert again is None, "fixes do not settle"


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_corpus_runs(case):
    case.skip_if_missing()
    kind, detail = case.expectation()
    before = run_script(case.before)
    if not case.positive:
        if kind == "error":  # a report-only case whose original fails (AD105)
            assert case.report_only and before.returncode != 0, before.stderr[-2000:]
            assert detail in before.stderr, before.stderr[-2000:]
            return
        assert before.returncode == 0, before.stderr[-2000:]
        return
    after = run_script(case.after)
    assert after.returncode == 0, after.stderr[-2000:]
    if kind == "runs":
        assert before.returncode == 0, before.stderr[-2000:]
        assert before.stdout == after.stdout
    elif kind == "error":
        assert before.returncode != 0, "the original was expected to fail"
        assert detail in before.stderr, before.stderr[-2000:]
    elif kind == "differs":
        # A silent change (AD212): the original runs but prints other numbers
        # than the fixed script, which prints the ones the header names.
        assert before.returncode == 0, before.stderr[-2000:]
        assert before.stdout != after.stdout
        assert detail in after.stdout, after.stdout[-2000:]
    elif kind == "grows":
        from autodetach.verify.probe import measure

        b = measure(case.before, steps=12)
        a = measure(case.after, steps=12)
        assert b.grows(), b
        assert not a.grows(), a
