"""The public API (`autodetach.fix_code`, `autodetach.check_code`),
suppression comments and failure-as-a-value, with real libcst."""
import pytest

import autodetach
from autodetach import engine
from autodetach.registry import SelectionError

from .test_cli import BAD, FIXED, read, run_cli, extra_rules, write  # noqa: F401 (fixture)

IMPORT = "from torch.autograd import Variable\n"


# --- public API -----------------------------------------------------------------

def test_fix_code_returns_new_source_and_fixed_findings():
    new, findings = autodetach.fix_code(BAD, select=["AD201"])
    assert new == FIXED
    assert [(f.code, f.line, f.column, f.fix, f.fixed) for f in findings] == [("AD201", 2, 5, "safe", True)]
    assert findings[0].path == "<string>"


def test_fix_code_accepts_a_single_selector_string():
    new, findings = autodetach.fix_code(BAD, select="AD201")
    assert new == FIXED and findings[0].fixed


def test_fixed_flags_survive_line_shifts():
    # The multi-line call collapses to one line: later findings move up. A
    # suppressed one stays unfixed, and a computed requires_grad is no finding.
    src = (IMPORT
           + "a = Variable(\n    h.data\n)\n"
           + "b = Variable(h.data)  # noqa: AD201\n"
           + "c = Variable(h.data, requires_grad=True)\n")
    new, findings = autodetach.fix_code(src, select=["AD201"])
    assert new == IMPORT + "a = h.detach()\nb = Variable(h.data)  # noqa: AD201\nc = h.detach().requires_grad_()\n"
    assert [(f.line, f.fixed) for f in findings] == [(2, True), (6, True)]


def test_nested_findings_fixed_over_several_passes():
    src = IMPORT + "g = Variable(Variable(h.data).data)\n"
    new, findings = autodetach.fix_code(src, select=["AD201"])
    assert new == IMPORT + "g = h.detach().detach()\n"
    assert len(findings) == 2 and all(f.fixed for f in findings)
    assert autodetach.fix_code(new, select=["AD201"]) == (new, [])


def test_fix_code_unsafe_flag(extra_rules):
    src = "x = old_api(1)\n"
    new, findings = autodetach.fix_code(src, select=["AD997"])
    assert new == src and findings[0].fix == "unsafe" and not findings[0].fixed
    new, findings = autodetach.fix_code(src, select=["AD997"], unsafe=True)
    assert new == "x = new_api(1)\n" and findings[0].fixed


def test_fix_code_no_findings_returns_same_object_text():
    src = "import torch\r\nx = 1\n"
    new, findings = autodetach.fix_code(src, select=["AD201"])
    assert new == src and findings == []


def test_check_code():
    findings = autodetach.check_code(BAD, select=["AD201"])
    assert [(f.code, f.line, f.fixed) for f in findings] == [("AD201", 2, False)]
    assert autodetach.check_code(BAD, select=["AD2"], ignore=["AD201"]) == []
    assert "Variable(h.data)" in findings[0].message and "h.detach()" in findings[0].message
    d = findings[0].to_dict()
    assert set(d) >= {"path", "line", "column", "end_line", "end_column", "code", "name", "message", "fix"}


def test_api_syntax_error_is_a_value():
    src = IMPORT + "print 'x'\n"
    new, findings = autodetach.fix_code(src, select=["AD201"])
    assert new == src
    assert [(f.code, f.line) for f in findings] == [("AD000", 2)]
    assert [f.code for f in autodetach.check_code(src)] == ["AD000"]


def test_api_unknown_selector():
    with pytest.raises(SelectionError):
        autodetach.check_code(BAD, select=["XX"])


def test_api_skip_file():
    assert autodetach.fix_code("# autodetach: skip-file\n" + BAD, select="AD201") == \
        ("# autodetach: skip-file\n" + BAD, [])


def test_api_crash_raises(extra_rules):
    with pytest.raises(ZeroDivisionError):
        autodetach.check_code("explode_here()\n", select=["AD999"])


# --- suppression ------------------------------------------------------------------

@pytest.mark.parametrize("comment", [
    "# noqa", "# noqa: AD201", "# noqa:AD201", "# noqa:AD201,AD202", "# noqa: AD202, AD201",
    "#noqa: ad201", "# NOQA: AD201 (legacy code)", "# autodetach: ignore[AD201]",
    "# autodetach: ignore", "# autodetach: ignore[AD202, AD201]", "# type: ignore  # noqa: AD201",
    # flake8 reads a bare `# noqa` followed by text as a blanket noqa.
    "# noqa AD201 is a typo?",
])
def test_suppressed(tmp_path, comment):
    p = write(tmp_path / "s.py", IMPORT + f"h = Variable(h.data)  {comment}\n")
    res = run_cli(["--fix", "s.py"], cwd=tmp_path)
    assert res.code == 0, res
    assert read(p) == IMPORT + f"h = Variable(h.data)  {comment}\n"  # neither reported nor fixed
    assert autodetach.fix_code(read(p), select="AD201") == (read(p), [])


@pytest.mark.parametrize("comment", [
    "# noqa: AD202", "# noqa: E501", "# autodetach: ignore[AD202]",
])
def test_not_suppressed(tmp_path, comment):
    src = IMPORT + f"h = Variable(h.data)  {comment}\n"
    assert len(autodetach.check_code(src, select="AD201")) == 1


def test_noqa_inside_a_string_does_not_suppress():
    src = IMPORT + "h = Variable(h.data) if '# noqa' else 1\n"
    assert len(autodetach.check_code(src, select="AD201")) == 1


@pytest.mark.parametrize("where", ["first", "last", "after-call"])
def test_noqa_on_a_multiline_finding(where):
    lines = ["h = Variable(", "    h.data", ")"]
    if where == "first":
        lines[0] += "  # noqa: AD201"
    elif where == "last":
        lines[2] += "  # noqa: AD201"
    else:
        lines = ["y = f(Variable(", "    h.data), 3,", ")  # noqa: AD201"]
    src = IMPORT + "\n".join(lines) + "\n"
    assert autodetach.check_code(src, select="AD201") == []


def test_noqa_on_another_statement_does_not_leak():
    src = IMPORT + "a = 1  # noqa\nh = Variable(h.data)\n"
    assert len(autodetach.check_code(src, select="AD201")) == 1


@pytest.mark.parametrize("header", ["# autodetach: skip-file\n", "#autodetach:skip-file\n",
                                    "import os\n# autodetach: skip-file\n",
                                    "import os\n    # autodetach: skip-file\n"])
def test_skip_file(tmp_path, header):
    src = header + BAD
    p = write(tmp_path / "s.py", src)
    res = run_cli(["--fix", "s.py"], cwd=tmp_path)
    assert res.code == 0 and read(p) == src


def test_skip_file_must_be_a_comment(tmp_path):
    src = BAD + "s = 'autodetach: skip-file'\n"
    assert len(autodetach.check_code(src, select="AD201")) == 1


# --- the text pre-filter ---------------------------------------------------------------

def test_prefilter_skips_files_without_tokens(tmp_path):
    """A file with none of the selected rules' tokens is never parsed: even
    a syntax error there goes unreported (documented in docs/cli.md)."""
    write(tmp_path / "py2.py", "print 'x'\n")
    res = run_cli(["--output-format", "json", "py2.py"], cwd=tmp_path)
    assert res.code == 0
    write(tmp_path / "py2.py", "from torch.autograd import Variable\nprint 'x'\n")
    assert run_cli(["py2.py"], cwd=tmp_path).code == 1


# --- finding identity (issue 9) ----------------------------------------------------

_EVAL = ("from torch.autograd import Variable\n\n\ndef evaluate(model, x):\n    model.eval()\n"
         "    v = Variable(\n        x,\n        volatile=True,\n    )\n    return model(v)\n\n\n")


def _ad204_above_unsafe_ad101():
    import pathlib

    src = (pathlib.Path(__file__).parent.parent / "corpus/AD101/prev_output.py").read_text()
    return src.replace("def train(", _EVAL + "def train(", 1)


def test_AD101_unapplied_unsafe_fix_stays_unfixed_when_AD204_shifts_lines():
    src = _ad204_above_unsafe_ad101()
    before = {f.code: f for f in autodetach.check_code(src)}
    assert before["AD101"].fix == "unsafe" and before["AD204"].fix == "safe"
    new, findings = autodetach.fix_code(src)
    got = {f.code: f for f in findings}
    assert got["AD204"].fixed and not got["AD101"].fixed
    # The AD204 fix moved the AD101 finding up; it is still there.
    after = [f for f in autodetach.check_code(new) if f.code == "AD101"]
    assert len(after) == 1 and after[0].line < before["AD101"].line
    # With unsafe fixes both are applied and reported fixed.
    new2, findings2 = autodetach.fix_code(src, unsafe=True)
    assert all(f.fixed for f in findings2 if f.code in ("AD101", "AD204"))
    assert not [f for f in autodetach.check_code(new2) if f.code in ("AD101", "AD204")]


def test_AD101_fixed_flags_agree_with_check_code_on_the_output():
    src = _ad204_above_unsafe_ad101()
    new, findings = autodetach.fix_code(src)
    left = {f.code for f in autodetach.check_code(new)}
    for f in findings:
        assert f.fixed == (f.code not in left), f.code


def test_identity_is_not_in_the_json_dict():
    _, findings = autodetach.fix_code(_ad204_above_unsafe_ad101())
    assert all("identity" not in f.to_dict() for f in findings)


def test_offset_map_moves_unchanged_text_and_clamps_rewrites():
    from autodetach.spans import OffsetMap

    old = "a = 1\nb = Variable(\n  x)\nc = 2\n"
    new = "a = 1\nb = x\nc = 2\n"
    m = OffsetMap(old, new)
    assert new[m(old.index("c")):].startswith("c = 2")
    assert m(old.index("a")) == 0
    start, end = m.span(old.index("Variable"), old.index("x)") + 2)
    assert new[start:end] == "x"


PASS_SRC = '''\
# header comment

import torch
from torch.autograd import Variable


def train(x):
    if x:
        y = Variable(x)  # keep
    return y


class M:
    def f(self, a):
        return a.data[0]
'''


@pytest.mark.parametrize("target", ["Variable", "data", "train"])
def test_a_pass_rebuilds_and_prints_only_the_statements_it_edits(target):
    # _Apply visits only the nodes that hold an edit, and _print copies the
    # untouched top-level statements: the same code as a whole transform.
    import libcst as cst

    from autodetach.engine import _Apply, _print
    from autodetach.positions import Positions

    module = cst.parse_module(PASS_SRC)
    pos = Positions(module)
    hits = []

    class Find(cst.CSTVisitor):
        def visit_Name(self, node):
            if node.value == target:
                hits.append(node)

    module.visit(Find())
    edits = {n: cst.Name("changed") for n in hits}

    class Whole(cst.CSTTransformer):
        def on_leave(self, original, updated):
            return edits.get(original, updated)

    new = module.visit(_Apply(edits, pos))
    expected = module.visit(Whole()).code
    assert _print(new, module, pos) == expected == new.code
    assert expected.count("changed") == len(hits) > 0
    # A statement without an edit is the same node, not a copy.
    def holds(s, h):
        return pos.extent(s)[0] <= pos.extent(h)[0] and pos.extent(h)[1] <= pos.extent(s)[1]

    untouched = [s for s in module.body if not any(holds(s, h) for h in hits)]
    assert untouched and all(any(s is t for t in new.body) for s in untouched)


def test_a_fix_that_adds_a_helper_before_the_function_it_edits_takes_one_pass():
    # AD106's helper goes before the first function after the imports; the
    # detach goes inside that same function. Both edits land in one pass, so
    # the report has one finding, not a second "found once the other fixes
    # are applied" for the same state.
    src = (
        "import torch\n"
        "\n"
        "\n"
        "def train(model, data, optimizer, criterion):\n"
        "    hidden = model.init_hidden(4)\n"
        "    for x, y in data:\n"
        "        optimizer.zero_grad()\n"
        "        out, hidden = model(x, hidden)\n"
        "        loss = criterion(out, y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
    )
    passes = []
    orig = engine.run_rules

    def counting(*a, **k):
        passes.append(1)
        return orig(*a, **k)

    engine.run_rules = counting
    try:
        new, report = autodetach.fix_code(src, select="AD106", unsafe=True)
    finally:
        engine.run_rules = orig
    assert [(f.code, f.fixed) for f in report] == [("AD106", True)]
    assert "def _detach_state(state):" in new and "        hidden = _detach_state(hidden)\n" in new
    assert len(passes) == 2  # the fix, and the pass that finds nothing left
    assert autodetach.fix_code(new, select="AD106", unsafe=True)[0] == new


@pytest.mark.parametrize("case,fix", [("AD101/ema_statistic.py", False), ("AD101/ema_statistic.py", True),
                                      ("AD212/bucket_index.py", False)])
def test_a_pass_leaves_no_tree_to_the_cyclic_collector(case, fix):
    # The context, its analysis and its bindings point at each other; a pass
    # breaks those cycles (FileContext.release), so its tree is freed at once
    # instead of being scanned by the collector (a tenth of the engine's time).
    import gc
    import os

    import libcst as cst

    from autodetach.registry import select_rules

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "corpus", case)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    rules = select_rules(select=["ALL"], ignore=[])
    gc.collect()
    gc.disable()
    try:
        engine.check_source(text, path, rules, engine.Options(fix=fix, unsafe=fix))
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        assert not [o for o in gc.garbage if isinstance(o, cst.CSTNode)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
