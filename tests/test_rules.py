"""Every rule's own VALID/INVALID cases, under real libcst (Fixit style)."""
import libcst as cst
import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

VALID = [pytest.param(r, c, id=f"{r.code}-valid-{i}") for r in all_rules() for i, c in enumerate(r.VALID)]
INVALID = [pytest.param(r, c, id=f"{r.code}-invalid-{i}") for r in all_rules() for i, c in enumerate(r.INVALID)]


def _run(rule, code, **kw):
    return check_source(code, "case.py", [rule], Options(**kw))


def test_every_rule_has_cases():
    for r in all_rules():
        assert r.VALID and r.INVALID, f"{r.code} needs VALID and INVALID cases"
        assert r.doc(), f"{r.code} needs a docstring"
        for section in ("## What it does", "## Why it matters", "## Example", "## Fix", "## Fix safety"):
            assert section in r.doc(), f"{r.code} docstring lacks {section!r}"


def test_every_ad2_case_states_where_and_what():
    # A case says where its first finding is and words its message holds, so a
    # rule that reports the wrong node or for the wrong reason fails its cases.
    missing = [f"{r.code}-invalid-{i}" for r in all_rules() if r.code.startswith("AD2")
               for i, c in enumerate(r.INVALID) if None in (c.line, c.column, c.message)]
    assert missing == []


@pytest.mark.parametrize("rule,case", VALID)
def test_valid(rule, case):
    findings, new, _ = _run(rule, case.code)
    assert [f for f in findings if f.code == rule.code] == [], case.note


@pytest.mark.parametrize("rule,case", INVALID)
def test_invalid(rule, case):
    findings, _, _ = _run(rule, case.code)
    mine = [f for f in findings if f.code == rule.code]
    assert len(mine) == case.count, [f.message for f in findings]
    if case.line is not None or case.column is not None or case.message is not None:
        first = min(mine, key=lambda f: (f.line, f.column))
        if case.line is not None:
            assert first.line == case.line, (first.line, first.column, first.message)
        if case.column is not None:
            assert first.column == case.column, (first.line, first.column, first.message)
        if case.message is not None:
            assert case.message in first.message, first.message
    if case.expected is None:
        assert all(f.fix == "none" for f in mine), [(f.fix, f.message) for f in mine]
        # No fix at all: even with unsafe fixes allowed the code stays as it is.
        assert _run(rule, case.code, fix=True, unsafe=True)[1] is None
        return
    if case.unsafe:  # the case says the fix is unsafe: it is labelled so, and not applied without the flag
        assert any(f.fix == "unsafe" for f in mine), [(f.fix, f.message) for f in mine]
        assert _run(rule, case.code, fix=True)[1] is None or not all(f.fix == "unsafe" for f in mine)
    _, new, _ = _run(rule, case.code, fix=True, unsafe=case.unsafe)
    assert new is not None, "the fix changed nothing"
    assert new == case.expected
    cst.parse_module(new)
    # Fixes settle: fixing the output changes nothing more.
    _, again, _ = _run(rule, new, fix=True, unsafe=case.unsafe)
    assert again is None
