"""A fix pass whose fixes only deleted unused `from torch.autograd import
Variable` lines (AD202's last fix on most legacy files), after a pass where
the AD1 rules reported nothing, skips the AD1 rules on the next pass
(engine._quiet_ad1; the argument is in docs/scale.md). engine.CHECK_SKIP
runs them anyway and fails if they report. These tests turn off the
deferral of the AD1 rules to the other rules' fixed point (engine.DEFER_AD1,
tests/test_ad1_defer.py), under which the AD1 rules of these files run on
the first pass and the last only."""
import glob
import os

import pytest

import autodetach
from autodetach import engine
from autodetach.engine import Options, process_bytes
from autodetach.registry import select_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LOOP = ("\n\ndef train(model, opt, loader):\n    for x, y in loader:\n        x = Variable(x)\n"
        "        loss = model(x).sum()\n        opt.zero_grad()\n        loss.backward()\n        opt.step()\n")
SKIPPED = {
    "plain": "import torch\nfrom torch.autograd import Variable\n" + LOOP,
    # AD102 is fixed on the first pass, with the wrapper: nothing of AD1's is left for the import's pass
    "ad1_fixed_first": "import torch\nfrom torch.autograd import Variable\n" + LOOP +
                       "        total = 0\n        total += loss\n",
}
KEPT = {
    # the name is still in the text (a comment): not provably unread
    "name_in_comment": "# a Variable once\nimport torch\nfrom torch.autograd import Variable\n" + LOOP,
    # the import was the file's only mention of torch: AD110 and the eval loops ask for that
    "only_torch_import": "from torch.autograd import Variable\n" + LOOP,
    # the deleted line held a comment
    "import_comment": "import torch\nfrom torch.autograd import Variable  # old\n" + LOOP,
    # a multi-name import loses one name: not a whole-line deletion
    "partial": "import torch\nfrom torch.autograd import Variable, grad\n" + LOOP + "    grad\n",
}


@pytest.fixture
def skips(monkeypatch):
    monkeypatch.setattr(engine, "CHECK_SKIP", True)
    monkeypatch.setattr(engine, "DEFER_AD1", False)
    monkeypatch.setattr(engine, "AD1_SKIPS", [0])
    return engine.AD1_SKIPS


@pytest.mark.parametrize("name", sorted(SKIPPED))
def test_skipped(skips, name):
    autodetach.check_code(SKIPPED[name])
    assert skips[0] == 1
    new, _ = autodetach.fix_code(SKIPPED[name], unsafe=True)
    assert skips[0] == 2
    assert "Variable" not in new


@pytest.mark.parametrize("name", sorted(KEPT))
def test_kept(skips, name):
    autodetach.check_code(KEPT[name])
    autodetach.fix_code(KEPT[name], unsafe=True)
    assert skips[0] == 0


def _run(data, path, rules):
    out = []
    for opts in (Options(), Options(unsafe=True), Options(fix=True), Options(fix=True, unsafe=True)):
        r = process_bytes(data, path, rules, opts)
        assert not r.errors, r.errors
        out.append(([(f.line, f.column, f.code, f.message, f.fixed, f.related) for f in r.findings],
                    r.new_source, r.fixed))
    return out


@pytest.mark.parametrize("check", [True, False])
def test_same_output_on_legacy_corpus(skips, monkeypatch, check):
    """Every legacy corpus file: the same findings and fixes with the skip
    as without it; with CHECK_SKIP the skipped rules run and stay silent."""
    monkeypatch.setattr(engine, "CHECK_SKIP", check)
    rules = select_rules(select=["ALL"])
    paths = sorted(glob.glob(os.path.join(ROOT, "corpus", "migration", "**", "*.py"), recursive=True))
    with_skip = {p: _run(open(p, "rb").read(), p, rules) for p in paths}
    assert skips[0] >= 5  # train_mnist_03, word_lm_03/model.py, sensor_lstm_03's files
    monkeypatch.setattr(engine, "_ad1_skip", lambda *a: frozenset())
    for p in paths:
        assert _run(open(p, "rb").read(), p, rules) == with_skip[p], p


# AD102 reports `history.append(loss)` with an unsafe fix only: a plain report
# (which keeps only the findings its fixing passes fix) skips the AD1 rules after
# the import removal; a report with --unsafe-fixes, and every fix run, does not.
REPORTED = "import torch\nfrom torch.autograd import Variable\n" + LOOP + "        history.append(loss)\n"


def test_report_skips_after_unfixed_ad1_findings(skips):
    found = autodetach.check_code(REPORTED)
    assert skips[0] == 1
    assert [f.code for f in found] == ["AD102", "AD202"]
    autodetach.fix_code(REPORTED)
    assert skips[0] == 1  # a fix run reads what remains: the rules run


def test_report_with_unfixed_ad1_findings_same_output(skips, monkeypatch):
    rules = select_rules(select=["ALL"])
    data = REPORTED.encode()
    with_skip = _run(data, "t.py", rules)
    # the plain report; with unsafe fixes (report and fix) AD102 is fixed on the
    # first pass, and the import's pass skips as before; the plain fix run does not
    assert skips[0] == 3
    monkeypatch.setattr(engine, "_ad1_skip", lambda *a: frozenset())
    assert _run(data, "t.py", rules) == with_skip
