"""Graph nodes hash by their creation order in the file's analysis, so a
report does not depend on memory addresses or on what the process ran
before (the path note of AD105/AD106 walks sets of nodes)."""
import os

import pytest

from autodetach.analysis.graph import GNode, reset_ids

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(os.path.dirname(HERE), "corpus")


def test_nodes_number_from_zero_in_each_analysis():
    reset_ids()
    a, b = GNode(name="a", stmt=None, expr=None, iteration=()), GNode(name="b", stmt=None, expr=None, iteration=())
    assert (hash(a), hash(b)) == (0, 1)
    assert a != GNode(name="a", stmt=None, expr=None, iteration=())  # still identity equality
    reset_ids()
    assert hash(GNode(name="c", stmt=None, expr=None, iteration=())) == 0


def _report(path):
    from autodetach import check_code

    with open(path, encoding="utf-8") as fh:
        return [(f.code, f.line, f.message, f.related) for f in check_code(fh.read())]


@pytest.mark.slow
def test_report_does_not_depend_on_what_ran_before():
    # main gave `<- h (line 27)` here inside a run over corpus/ and `<- c` alone.
    target = os.path.join(CORPUS, "AD106", "lstm_cell_online.py")
    alone = _report(target)
    folder = os.path.join(CORPUS, "AD106")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            _report(os.path.join(folder, name))
    assert _report(target) == alone
    assert any("path from this backward" in note for f in alone for _, _, note in f[3])
