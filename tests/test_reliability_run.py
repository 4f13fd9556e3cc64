"""Regressions found by benchmarks/reliability.py (docs/reliability.md):
each input is the smallest form of a file the run flagged."""
import libcst as cst
import pytest

import autodetach

FIX_AT_END = "from torch.autograd import Variable\ndef f(t):\n    return Variable(t.data)\n"


def test_blank_lines_before_an_indented_comment_at_the_end_are_kept():
    # libcst prints `x\n\n  # c` as `x\n  # c`; a fix must not drop the line.
    ending = "\n  \n  # TODO\r\n\t\n\t#\n"
    src = FIX_AT_END + ending
    assert cst.parse_module(src).code != src  # the libcst behaviour this guards against
    new, findings = autodetach.fix_code(src)
    assert [f.code for f in findings if f.fixed] == ["AD201"]
    assert new == "def f(t):\n    return t.detach()\n" + ending
    assert autodetach.fix_code(new)[0] == new


def test_comments_inside_removed_brackets_are_kept():
    # mutated corpus case (comments on every line of a split call): the
    # AD202/AD201 rewrites dropped the comments inside `Variable(...)`.
    src = ("from torch.autograd import Variable\nimport torch\n"
           "def f(weight, bsz, h):\n"
           "    hidden = (Variable(  # c1\n            weight.new(  # c2\n            1, bsz).zero_()),  # c3\n"
           "              Variable(h.data  # c4\n              ))\n"
           "    return hidden\n")
    new, findings = autodetach.fix_code(src)
    assert sorted(f.code for f in findings if f.fixed) == ["AD201", "AD202"]
    assert "Variable" not in new
    for c in ("# c1", "# c2", "# c3", "# c4"):
        assert new.count(c) == 1, c
    compile(new, "<fixed>", "exec")
    assert autodetach.fix_code(new)[0] == new


def test_every_place_a_fix_changes_is_reported():
    # AD203's fix of `total_loss[0]` also rewrites the `.data` accumulator
    # lines above it; the finding now points at them (related notes).
    src = ("import torch.nn as nn\ncriterion = nn.CrossEntropyLoss()\n\n\n"
           "def evaluate(model, data):\n    total_loss = 0\n    for x, y in data:\n"
           "        total_loss += len(x) * criterion(model(x), y).data\n    return total_loss[0] / len(data)\n")
    new, findings = autodetach.fix_code(src, select=["AD203"])
    assert ".item()" in new and "total_loss[0]" not in new
    (f,) = findings
    assert (f.line, f.code) == (9, "AD203")
    assert (8, "the fix changes this too") in {(r[0], r[2]) for r in f.related}


def test_comments_inside_a_replaced_expression_are_kept():
    # mutated corpus case: AD206 replaced `type(  # why\n h) == Variable`
    # whole and dropped the comment inside it.
    src = ("import torch\nfrom torch.autograd import Variable\n\n\ndef f(h):\n"
           "    if type(  # why\n            h) == Variable:  # c\n        return h\n")
    new, findings = autodetach.fix_code(src)
    assert [f.code for f in findings if f.fixed] == ["AD206"]
    assert "isinstance(h, torch.Tensor)" in new and "# why" in new and "# c" in new
    compile(new, "<fixed>", "exec")
    assert autodetach.fix_code(new)[0] == new


# A fix that brings out a new finding (cascading fixes): the first loss
# is detached, then the rule reports the second. Both must be reported
# before any is fixed, so that every changed line has its finding.
CASCADE_LOOP = """import torch

net = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(4, 2)
for step in range(3):
    if step == 0:
        a = net(x).sum()
        b = net(x).mean()
    loss = a + b
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
CASCADE_METHOD = """import torch


class Trainer:
    def __init__(self):
        self.net = torch.nn.Linear(2, 1)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def step(self, x, extra):
        first = self.net(x).sum()
        if extra:
            self.second_a = self.net(x).mean()
            self.second_b = self.net(x).max()
        loss = first
        if extra is not None:  # not the test above: a False `extra` reads the last call's values
            loss += self.second_a + self.second_b
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
"""


def _changed_lines(old: str, new: str) -> set:
    import difflib

    out = set()
    sm = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    for op, i1, i2, _, _ in sm.get_opcodes():
        if op != "equal":
            out.update(range(i1 + 1, max(i2, i1 + 1) + 1))
    return out


def test_findings_that_appear_during_fixing_are_reported():
    from autodetach.engine import APPEARED, Options, check_source
    from autodetach.registry import select_rules

    rules = select_rules(select=["AD101"])
    for src, lines in ((CASCADE_LOOP, [8, 9]), (CASCADE_METHOD, [12, 13])):
        report, new, _ = check_source(src, "t.py", rules, Options(unsafe=True))
        assert new is None
        assert sorted(f.line for f in report) == lines
        assert sum(f.message.endswith(APPEARED) for f in report) == 1
        # Without unsafe fixes nothing is fixed, so nothing appears.
        assert len(check_source(src, "t.py", rules, Options())[0]) == 1
        fixed, found = autodetach.fix_code(src, select=["AD101"], unsafe=True)
        assert sorted(f.line for f in found if f.fixed) == lines
        assert _changed_lines(src, fixed) == set(lines)
        assert autodetach.fix_code(fixed, select=["AD101"], unsafe=True)[0] == fixed


def test_a_report_stands_when_fixing_fails():
    # A report now runs the fixing passes; a fix that breaks the file is
    # `--fix`'s internal error, never the report's.
    from autodetach.engine import Options, check_source
    from autodetach.rule import Rule

    class BadFix(Rule):
        """A test-only rule whose fix does not parse (`x = lambda`)."""

        code = "AD996"
        name = "test-only-bad-fix"
        summary = "a fix that breaks the file"
        tokens = ("bad_fix_here",)
        fix_safety = "safe"

        def visit_Call(self, node):
            if isinstance(node.func, cst.Name) and node.func.value == "bad_fix_here":
                self.report(node, "bad fix", replacement=cst.Name("lambda"), fix_title="Break it")

    src = "x = bad_fix_here(1)\n"
    report, new, _ = check_source(src, "t.py", [BadFix], Options())
    assert [(f.code, f.line, f.column) for f in report] == [("AD996", 1, 5)] and new is None
    with pytest.raises(RuntimeError, match="does not parse"):
        check_source(src, "t.py", [BadFix], Options(fix=True))


def test_an_import_the_fixes_free_is_one_note_also_after_a_text_fix():
    # The first text (`async=True`) does not parse as Python 3.7+, and
    # fix_reported is seeded with a report that already has the note: it is
    # still one related note of AD201, not a finding, and not twice.
    src = ("import torch\nfrom torch.autograd import Variable\n"
           "x = torch.zeros(3).cuda(async=True)\nh = Variable(x.data)\n")
    codes = ["AD201", "AD202", "AD209"]
    new, found = autodetach.fix_code(src, select=codes)
    assert [(f.code, f.line, f.fixed) for f in found] == [("AD209", 3, True), ("AD201", 4, True)]
    notes = [r for f in found for r in f.related]
    assert len(notes) == 1 and notes[0][:2] == (2, 28) and "no longer used" in notes[0][2]
    assert "Variable" not in new


# diffusers' examples/amused/train_amused.py, smallest form: two graphs
# built before the loop, both rebuilt in a branch inside it. The walk from
# the backward meets two freed graphs; which one it met first (and so AD101
# or AD107, and which fix) followed the nodes' addresses, so a report and a
# `--fix` of the same file disagreed, and a second `--fix` changed it again.
BUILT_BEFORE_AND_IN_LOOP = """import torch
from torch import nn

model = nn.Linear(4, 4)
encoder = nn.Linear(4, 4)
opt = torch.optim.SGD(list(model.parameters()) + list(encoder.parameters()), lr=0.1)
hidden = encoder(torch.randn(2, 4))
cond = encoder(torch.randn(2, 4))

for batch in loader:
    if "prompt" in batch:
        hidden = encoder(batch["prompt"])
        cond = encoder(batch["prompt"])
    out = model(hidden) + model(cond)
    loss = out.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@pytest.mark.slow
def test_the_same_file_gets_the_same_findings_every_time(tmp_path):
    import json
    import shutil

    from tests.cli_helper import invoke

    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(6):
        (tree / f"train_{i}.py").write_text(BUILT_BEFORE_AND_IN_LOOP)
    args = ["--unsafe-fixes", "--no-cache", "--no-progress", "--exit-zero", "--output-format", "json", "."]
    reports = [invoke(args, cwd=tree).out for _ in range(3)]
    assert reports[0] == reports[1] == reports[2]
    fixable = {}
    for f in json.loads(reports[0])["findings"]:
        if f["fix"] != "none":
            lines = {f["line"]} | {r[0] for r in f.get("related") or []}
            fixable.setdefault(f["path"], set()).update(lines)
    work = tmp_path / "work"
    shutil.copytree(tree, work)
    invoke(["--fix", *args], cwd=work)
    for i in range(6):
        name = f"train_{i}.py"
        changed = _changed_lines(BUILT_BEFORE_AND_IN_LOOP, (work / name).read_text())
        assert changed and changed <= fixable.get(name, set())
    fixed = {p.name: p.read_bytes() for p in work.iterdir()}
    invoke(["--fix", *args], cwd=work)
    assert {p.name: p.read_bytes() for p in work.iterdir()} == fixed


def test_nodes_hash_by_creation_order_within_a_file():
    from autodetach.engine import Options, check_source
    from autodetach.registry import select_rules

    rules = select_rules(select=["AD101", "AD107"])
    seen = {tuple((f.code, f.line, f.message) for f in
                  check_source(BUILT_BEFORE_AND_IN_LOOP, "t.py", rules, Options(unsafe=True))[0])
            for _ in range(12)}
    assert len(seen) == 1
    assert sorted(f[:2] for f in next(iter(seen))) == [("AD101", 12), ("AD101", 13), ("AD107", 7), ("AD107", 8)]


def test_comments_of_moved_init_state_are_kept():
    # mutated corpus case (AD214/grad_reverse_init with a comment on every
    # line): the unsafe rewrite moved `self.lambd = lambd  # c` into
    # `forward` without its comment and dropped the comment line above
    # `forward`.
    src = ("import torch\nfrom torch.autograd import Function\n\n\n"
           "class GradReverse(Function):\n"
           "    def __init__(self, lambd):\n"
           "        super(GradReverse, self).__init__()\n"
           "        # the strength\n"
           "        self.lambd = lambd  # kept\n"
           "    # above forward\n"
           "    def forward(self, x):\n        return x.view_as(x)\n\n"
           "    def backward(self, grad_output):\n        return grad_output * -self.lambd\n\n\n"
           "def f(x):\n    return GradReverse(0.25)(x)\n")
    new, findings = autodetach.fix_code(src, select=["AD214"], unsafe=True)
    assert [f.code for f in findings if f.fixed] == ["AD214"]
    assert "GradReverse.apply(x, 0.25)" in new
    assert "        # the strength\n        ctx.lambd = lambd  # kept\n" in new
    assert "    # above forward\n    @staticmethod\n    def forward(ctx, x, lambd):" in new
    compile(new, "<fixed>", "exec")
    assert autodetach.fix_code(new, select=["AD214"], unsafe=True)[0] == new
