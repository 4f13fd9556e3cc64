"""Regressions found by benchmarks/reliability.py (docs/reliability.md):
each input is the smallest form of a file the run flagged."""
import libcst as cst

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
