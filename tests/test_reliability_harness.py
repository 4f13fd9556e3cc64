"""The reliability run's own yardstick (benchmarks/reliability.py): which
statement changes count as changes outside the reported lines."""
import ast
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from benchmarks import reliability  # noqa: E402

OLD = """\
def fn(x, y):
    return checkpoint(gn, x, y)
    return checkpoint(gn, x, y, use_reentrant=True)
"""
# The fix writes line 2 into a copy of line 3.
NEW = OLD.replace("    return checkpoint(gn, x, y)\n", "    return checkpoint(gn, x, y, use_reentrant=True)\n")


def test_a_statement_fixed_into_a_copy_of_the_next_is_inside_its_finding():
    assert reliability.ast_outside(ast.parse(OLD), ast.parse(NEW), [(2, 2)]) == []


def test_the_same_change_without_a_finding_is_outside():
    assert reliability.ast_outside(ast.parse(OLD), ast.parse(NEW), [(1, 1)]) != []


def test_an_unreported_change_beside_a_reported_one_is_outside():
    old = "a = 1\nb = 2\nc = 3\n"
    new = "a = 10\nb = 2\nc = 30\n"
    assert 3 in reliability.ast_outside(ast.parse(old), ast.parse(new), [(1, 1)])
