"""While the AD1 rules report nothing, a fix run's later passes run only the
other rules until their fixes leave the text alone, and the AD1 rules then
once, on that fixed point (engine.DEFER_AD1, run_rules' `defer`; the argument
is in docs/scale.md, "The AD1 rules on the fixed point of the others").
engine.CHECK_DEFER runs the deferred rules too and records where they would
have reported (engine.DEFER_MISSES): the only place the schedule can give
another output than running every rule on every pass."""
import glob
import os

import pytest

import autodetach
from autodetach import engine
from autodetach.engine import Options, process_bytes
from autodetach.registry import by_code, select_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEGACY = sorted(glob.glob(os.path.join(ROOT, "corpus", "migration", "**", "*.py"), recursive=True))
LEGACY = [p for p in LEGACY if "_03" in p and not p.endswith(("__init__.py", ".fixed.py", ".port.py"))]

# AD201 rewrites the statement `Variable(h.data)` to `h.detach()`, which is
# AD110's (a detach whose result is dropped); AD202 then removes the import.
# The AD1 rules report nothing on the first pass: AD110 appears on the fixed
# point of the AD2 fixes.
APPEARS = ("import torch\nfrom torch.autograd import Variable\n\n\n"
           "def train(model, opt, loader, h):\n    for x, y in loader:\n        Variable(h.data)\n"
           "        loss = (model(x) * h).sum()\n        opt.zero_grad()\n        loss.backward()\n"
           "        opt.step()\n")
# The AD1 rules report on the first pass (AD106, the recurrent state): every pass runs them.
REPORTS_FIRST = ("import torch\nfrom torch.autograd import Variable\n\n\n"
                 "def train(model, opt, loader, hidden):\n    for x, y in loader:\n"
                 "        x = Variable(x)\n        out, hidden = model(x, hidden)\n        loss = out.sum()\n"
                 "        opt.zero_grad()\n        loss.backward()\n        opt.step()\n")


@pytest.fixture
def ad1_runs(monkeypatch):
    """How many times the AD1 analysis's first rule finished (once per pass that ran the AD1 rules)."""
    rule = by_code()["AD101"]
    runs = [0]
    orig = rule.finish

    def finish(self):
        runs[0] += 1
        return orig(self)

    monkeypatch.setattr(rule, "finish", finish)
    return runs


def _outputs(text, path="a.py"):
    rules = select_rules()
    out = []
    for opts in (Options(), Options(fix=True, unsafe=True), Options(fix=True)):
        res = process_bytes(text.encode(), path, rules, opts)
        out.append(([(f.line, f.column, f.end_line, f.end_column, f.code, f.message, f.fix, f.fixed, f.related)
                     for f in res.findings], res.new_source, res.errors))
    new, fixed = engine.fix_code(text, unsafe=True, path=path)
    out.append((new, [(f.line, f.code, f.message, f.fixed, f.related) for f in fixed]))
    out.append([(f.line, f.code, f.message, f.related) for f in autodetach.check_code(text)])
    return out


def _passes(monkeypatch):
    n = []
    orig = engine.run_rules

    def counting(*a, **k):
        n.append(k.get("defer", False))
        return orig(*a, **k)

    monkeypatch.setattr(engine, "run_rules", counting)
    return n


@pytest.mark.parametrize("path", LEGACY, ids=lambda p: os.path.relpath(p, ROOT))
def test_legacy_files_same_output_and_nothing_deferred_would_report(monkeypatch, path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    monkeypatch.setattr(engine, "DEFER_AD1", False)
    before = _outputs(text, path)
    monkeypatch.setattr(engine, "DEFER_AD1", True)
    monkeypatch.setattr(engine, "CHECK_DEFER", True)
    monkeypatch.setattr(engine, "DEFER_MISSES", [])
    assert _outputs(text, path) == before
    assert engine.DEFER_MISSES == []


def test_train_mnist_runs_the_ad1_rules_on_the_first_pass_and_the_fixed_point(monkeypatch, ad1_runs):
    with open(os.path.join(ROOT, "corpus", "migration", "train_mnist_03.py"), encoding="utf-8") as fh:
        text = fh.read()
    passes = _passes(monkeypatch)
    autodetach.check_code(text)
    assert passes == [False, True, True, True, True]  # five passes, the last four deferred
    assert ad1_runs[0] == 2
    monkeypatch.setattr(engine, "DEFER_AD1", False)
    ad1_runs[0] = 0
    autodetach.check_code(text)
    assert ad1_runs[0] == 4  # the fifth pass skips them after the import's removal (test_ad1_skip.py)


def test_a_finding_the_other_fixes_create_is_still_found_and_fixed(monkeypatch, ad1_runs):
    passes = _passes(monkeypatch)
    report = autodetach.check_code(APPEARS)
    assert sorted(f.code for f in report) == ["AD110", "AD201"]
    assert passes == [False, True, True, False]  # AD201, the import, AD110 on the fixed point, confirm
    assert ad1_runs[0] == 3
    new, fixed = autodetach.fix_code(APPEARS, unsafe=True)
    assert "h = h.detach()" in new and "Variable" not in new
    assert all(f.fixed for f in fixed) and sorted(f.code for f in fixed) == ["AD110", "AD201"]
    after = _outputs(APPEARS)
    monkeypatch.setattr(engine, "DEFER_AD1", False)
    assert _outputs(APPEARS) == after


def test_no_deferral_after_an_ad1_report(monkeypatch, ad1_runs):
    passes = _passes(monkeypatch)
    report = autodetach.check_code(REPORTS_FIRST)
    assert "AD106" in {f.code for f in report}
    assert not any(passes[:2])  # the pass after the one that fixed AD106 ran every rule
    after = _outputs(REPORTS_FIRST)
    monkeypatch.setattr(engine, "DEFER_AD1", False)
    assert _outputs(REPORTS_FIRST) == after


@pytest.mark.parametrize("path", LEGACY, ids=lambda p: os.path.relpath(p, ROOT))
def test_fixes_settle_and_a_second_run_fixes_nothing(path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    new, _ = engine.fix_code(text, unsafe=True, path=path)
    again, fixed = engine.fix_code(new, unsafe=True, path=path)
    assert again == new
    assert not any(f.fixed for f in fixed)
    remaining = process_bytes(new.encode(), path, select_rules(), Options(fix=True, unsafe=True))
    assert remaining.new_source is None and remaining.fixed == 0
