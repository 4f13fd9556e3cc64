"""Checks on the AD1xx corpus itself, independent of the rules.

- Layout and conventions: enough positives and negatives per rule, the header
  line, the seed, AUTODETACH_ITERS, the unsafe marker where the fix is unsafe.
- `grows` cases: live saved-tensor bytes (counted through
  torch.autograd.graph.saved_tensors_hooks) rise at every optimizer step
  before the fix and stay flat after it.
- AD103 and AD105: the fixed script prints exactly what the original prints
  when every backward and autograd.grad is forced to retain_graph=True (the
  "reference" run): these fixes must not change the numbers.
"""
import json
import os
import re
import subprocess
import sys

import pytest

from .corpus import CORPUS, cases

AD1 = [f"AD1{n:02d}" for n in range(1, 11)]
UNSAFE_ALWAYS = {"AD107", "AD108"}
# AD105's retain_graph=True is unsafe only where an optimizer step between the
# two backward calls may change weights the second graph saved.
NEVER_UNSAFE = {"AD102", "AD103", "AD104", "AD106", "AD110"}
_HEADER = re.compile(r"^# expect-before: (runs|grows|error \S.*)$")
_ITERS = 'ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))'

AD1_CASES = [c for c in cases("AD1") if c.code in AD1]


def _read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _params(selected):
    return [pytest.param(c, id=f"{c.code}/{c.name}") for c in selected]


@pytest.mark.parametrize("code", AD1)
def test_enough_cases(code):
    mine = [c for c in AD1_CASES if c.code == code]
    positives = [c for c in mine if c.positive or c.report_only]
    negatives = [c for c in mine if c.name.startswith("ok_")]
    assert len(positives) >= 4, [c.name for c in positives]
    assert len(negatives) >= 4, [c.name for c in negatives]
    for c in mine:
        # every case is exactly one of: a fixable positive, flag_, ok_
        kinds = [c.positive, c.report_only, c.name.startswith("ok_")]
        assert kinds.count(True) == 1, c.name
    for f in os.listdir(os.path.join(CORPUS, code)):
        if f.endswith(".fixed.py"):
            assert os.path.exists(os.path.join(CORPUS, code, f[:-len(".fixed.py")] + ".py")), f


@pytest.mark.slow
@pytest.mark.parametrize("case", _params(AD1_CASES))
def test_conventions(case):
    text = _read(case.before)
    first = text.splitlines()[0]
    assert _HEADER.match(first), first
    assert re.search(r"\bmanual_seed\(0\)", text)  # `from torch import manual_seed` too
    assert _ITERS in text
    assert len(re.findall(r"\bITERS\b", text)) >= 2, "ITERS is defined but not used"
    unsafe = "# autodetach-test: unsafe" in text
    if case.code in UNSAFE_ALWAYS and case.positive:
        assert unsafe
    # A fix that rests on inferred roles (analysis/roles.py) is unsafe in any rule.
    inferred = "inferred" in text.split("\nimport", 1)[0]
    if (case.code in NEVER_UNSAFE and not inferred) or not case.positive:
        assert not unsafe
    if case.code == "AD101" and case.positive and not inferred:
        # unsafe exactly when the stored value reaches a later loss (it crashes)
        assert unsafe == first.startswith("# expect-before: error"), first
    if case.report_only:
        # AD109: a model silently stops learning. AD105: retain_graph=True
        # would fail too (see test_report_only_retain_fails_too). AD108: the
        # stale graph was built before the loop, where no statement can move.
        # AD107: the graph is built once by another method and kept on self.
        # AD102: the list's last entry is backwarded, so a detached entry would fail.
        # AD101: a loss sum backwarded (retained) every step: detaching it leaves nothing to backward; or a
        # loop variable that is a number on some iterations (it grows, and `.detach()` would raise there).
        # AD110: a no-op `x.detach()` statement whose assignment would cut a later loss of x's own model; or a
        # loop variable rebound to a detached copy nothing reads (it runs; the container keeps its graph).
        # AD104: a retain on the last task of `for obj in objectives` (no index to test without rewriting the loop).
        # AD106: state a module keeps, cut only outside the loop that steps (cut per step, or step once: a choice).
        # AD103: a multiplier's ascent pass that cancels a term another loss adds (it runs; the fix rebuilds
        # the multiplier's loss).
        assert (case.code, first.startswith("# expect-before: error")) in (
            ("AD109", False), ("AD105", True), ("AD108", True), ("AD107", True), ("AD102", False), ("AD101", True),
            ("AD101", False), ("AD110", True), ("AD110", False), ("AD104", False), ("AD106", True), ("AD103", False))
        assert case.code in ("AD101", "AD105", "AD106", "AD107", "AD108", "AD110") or first == "# expect-before: runs"
    if case.name.startswith("ok_"):
        assert first == "# expect-before: runs"
    if case.positive:
        after = _read(case.after)
        assert after.splitlines()[0] == first
        assert re.search(r"\bmanual_seed\(0\)", after) and _ITERS in after


_PROBE = r"""
import contextlib, gc, io, json, runpy, sys, weakref
import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

class _Held:
    __slots__ = ("t", "__weakref__")
    def __init__(self, t):
        self.t = t

_live = weakref.WeakSet()
_samples = []

def _pack(t):
    h = _Held(t.detach())  # detached: holding an output must not form a cycle
    _live.add(h)
    return h

def _sample(*_):
    _samples.append(sum(h.t.numel() * h.t.element_size() for h in list(_live)))

register_optimizer_step_post_hook(_sample)
result = {}
for path in sys.argv[1:]:
    _samples.clear()
    sys.argv = [path]
    with torch.autograd.graph.saved_tensors_hooks(_pack, lambda h: h.t):
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(path, run_name="__main__")
    result[path] = list(_samples)
    gc.collect()
print("PROBE " + json.dumps(result))
"""

# argv: FIXED ORIGINAL. Prints the fixed script's output, a separator, then the
# original's output with retain_graph=True forced on every backward and grad.
_REFERENCE = r"""
import runpy, sys
import torch

fixed, original = sys.argv[1:3]
sys.argv = [fixed]
runpy.run_path(fixed, run_name="__main__")
print("=====", flush=True)

_backward, _grad = torch.autograd.backward, torch.autograd.grad

def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, *rest, **kw):
    return _backward(tensors, grad_tensors, True, create_graph, *rest, **kw)

def grad(*args, **kw):
    kw["retain_graph"] = True
    return _grad(*args, **kw)

torch.autograd.backward, torch.autograd.grad = backward, grad
sys.argv = [original]
runpy.run_path(original, run_name="__main__")
"""


def _run(code, paths, iters=None):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "PYTHONPATH", "TMPDIR")}
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0",
               CUDA_VISIBLE_DEVICES="", PYTHONWARNINGS="ignore")
    if iters is not None:
        env["AUTODETACH_ITERS"] = str(iters)
    return subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True,
                          timeout=180, cwd=os.path.dirname(paths[0]), env=env)


GROWS = [c for c in AD1_CASES if c.positive and c.expectation()[0] == "grows"]


@pytest.mark.slow
@pytest.mark.parametrize("case", _params(GROWS))
def test_grows_before_flat_after(case):
    case.skip_if_missing()
    proc = _run(_PROBE, [case.before, case.after], iters=8)
    assert proc.returncode == 0, proc.stderr[-2000:]
    line = [l for l in proc.stdout.splitlines() if l.startswith("PROBE ")][-1]
    samples = json.loads(line[len("PROBE "):])
    before, after = samples[case.before], samples[case.after]
    assert len(before) == len(after) == 8
    # before: saved tensors pile up at every step
    assert all(b > a for a, b in zip(before[1:], before[2:])), before
    assert before[-1] >= 3 * max(before[1], 1), before
    # after: the live saved bytes settle after the first step
    assert max(after[1:]) == min(after[1:]), after
    assert after[-1] < before[-1] / 2, (before, after)


# argv: ORIGINAL. The reference run alone: the original with
# retain_graph=True forced on every backward and grad.
_RETAINED = "import runpy, sys\nimport torch\noriginal = sys.argv[1]\n" + \
    _REFERENCE[_REFERENCE.index("_backward, _grad"):]


REPORT_ONLY_AD105 = [c for c in AD1_CASES if c.code == "AD105" and c.report_only]


@pytest.mark.slow
@pytest.mark.parametrize("case", _params(REPORT_ONLY_AD105))
def test_report_only_retain_fails_too(case):
    """AD105 reports without a fix where retain_graph=True cannot help: the
    reference run (retain_graph=True everywhere) fails as well."""
    case.skip_if_missing()
    proc = _run(_RETAINED, [case.before])
    assert proc.returncode != 0
    assert "modified by an inplace operation" in proc.stderr, proc.stderr[-2000:]


EQUIVALENT = [c for c in AD1_CASES if c.positive and c.code in ("AD103", "AD105")]


@pytest.mark.slow
@pytest.mark.parametrize("case", _params(EQUIVALENT))
def test_fix_matches_retain_graph_reference(case):
    case.skip_if_missing()
    proc = _run(_REFERENCE, [case.after, case.before])
    assert proc.returncode == 0, proc.stderr[-2000:]
    after, reference = proc.stdout.split("=====\n")
    assert after == reference
    assert re.search(r"\d\.\d{6}", after)


@pytest.mark.parametrize("case", _params(REPORT_ONLY_AD105))
def test_report_only_retain_not_offered(case):
    """The reference run fails on these (test_report_only_retain_fails_too), so no
    retain may be offered at all, not even as an unsafe fix for --verify to try."""
    from autodetach.engine import Options, check_source
    from autodetach.findings import NONE
    from autodetach.registry import all_rules

    case.skip_if_missing()
    findings, _, _ = check_source(_read(case.before), case.before, all_rules(), Options())
    ad105 = [f for f in findings if f.code == "AD105"]
    assert ad105 and all(f.fix == NONE for f in ad105), [(f.line, f.fix, f.message[:120]) for f in ad105]
