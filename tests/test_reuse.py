"""Fix passes reuse what the previous pass knew about the top-level
statements its fixes left alone: the tree (only rewritten statements are
parsed again), positions and parents. Every reused tree is compared with a
full parse of its text (engine.CHECK_REUSE)."""
import glob
import os

import libcst as cst
import pytest

import autodetach
from autodetach import engine
from autodetach.analysis.walk import keep_parents, parents, parents_by_statement
from autodetach.engine import Options, process_bytes
from autodetach.positions import Positions
from autodetach.registry import select_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def reused(monkeypatch):
    """Checks every reused tree; counts the trees reused."""
    monkeypatch.setattr(engine, "CHECK_REUSE", True)
    count = []
    orig = engine._reparse

    def counting(carry):
        out = orig(carry)
        count.append(out is not None)
        return out

    monkeypatch.setattr(engine, "_reparse", counting)
    return count


# Fixes in several passes (AD204's statement waits for AD202's wrapper), in
# files whose first statement, indent, newlines or header are not plain.
SOURCES = {
    "plain": "import torch\nfrom torch.autograd import Variable\n\n\ndef f(x):\n    return Variable(x)\n",
    "first_statement_fixed": "# a header comment\n\nfrom torch.autograd import Variable\nimport torch\n"
                             "x = Variable(torch.ones(2))\n",
    "two_space_indent": "import torch\nfrom torch.autograd import Variable\n\n"
                        "def f(x):\n  y = Variable(x, volatile=True)\n  return Variable(y)\n\n"
                        "def g(x):\n  return Variable(x)\n",
    "crlf": "import torch\r\nfrom torch.autograd import Variable\r\n\r\ndef f(x):\r\n"
            "    return Variable(x).data[0]\r\n",
    "tabs_then_spaces": "import torch\nfrom torch.autograd import Variable\nif True:\n\tz = 1\n"
                        "def f(x):\n    return Variable(x)\n",
    "footer_comment": "import torch\nfrom torch.autograd import Variable\nx = Variable(torch.ones(2))\n# the end\n",
}
# Where a reused statement's neighbours change, its leading lines may belong
# elsewhere in a full parse: the header, or the block of a new statement before it.
MOVED = {
    "first_removed": "from torch.autograd import Variable\n\n# note\nimport torch\nx = Variable(torch.ones(2))\n",
    "new_block_before": "import torch\nfrom torch.autograd import Variable\n"
                        "x = Variable(torch.ones(2), volatile=True)\n    # indented\ny = x + 1\n",
    "new_block_at_end": "import torch\nfrom torch.autograd import Variable\n"
                        "x = Variable(torch.ones(2), volatile=True)\n    # indented\n",
    "removed_between": "import torch\nfrom torch.autograd import Variable\nif True:\n    pass\n"
                       "from torch.autograd import Variable as V\n    # indented\nx = Variable(torch.ones(2))\n",
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_reused_trees_equal_a_full_parse(reused, name):
    src = SOURCES[name]
    new, findings = autodetach.fix_code(src, unsafe=True)
    assert new != src and any(f.fixed for f in findings)
    cst.parse_module(new)
    if name == "tabs_then_spaces":
        # f's block, indented unlike the file's first block, is parsed with the whole text.
        assert reused and not reused[0]
    else:  # every fixed text after the first is taken from the last pass's tree
        assert reused and all(reused)


@pytest.mark.parametrize("name", sorted(MOVED))
def test_moved_leading_lines_are_parsed_with_the_whole_text(reused, name):
    new, findings = autodetach.fix_code(MOVED[name], unsafe=True)  # CHECK_REUSE raises on a difference
    assert new != MOVED[name] and any(f.fixed for f in findings)
    if name == "new_block_before":  # the with block takes `y = x + 1` in: nothing moved
        assert reused and all(reused)
    else:
        assert reused and not all(reused)


def test_migration_corpus_reuses_every_pass(reused):
    rules = select_rules(select=["ALL"])
    files = sorted(glob.glob(os.path.join(ROOT, "corpus", "migration", "**", "*_03*.py"), recursive=True))
    files += sorted(glob.glob(os.path.join(ROOT, "corpus", "migration", "*_03", "*.py")))
    assert files
    for path in files:
        with open(path, "rb") as fh:
            data = fh.read()
        result = process_bytes(data, path, rules, Options(fix=True, unsafe=True))
        assert not result.errors, result.errors
    assert len(reused) >= len(files) and all(reused)


def test_statement_positions_and_parents_match_the_whole_module():
    with open(os.path.join(ROOT, "corpus", "migration", "train_mnist_03.py"), encoding="utf-8") as fh:
        module = cst.parse_module(fh.read())
    whole, parts = Positions(module), {}
    by_stmt = Positions(module, parts)
    ids = {id(s) for s in module.body[1:]}
    by_stmt.keep(ids)
    assert ids <= set(parts)
    again = Positions(module, parts)  # from the kept parts
    assert by_stmt.code == whole.code == again.code == module.code
    assert by_stmt._offsets == whole._offsets == again._offsets
    assert by_stmt._outer == whole._outer == again._outer
    kept: dict = {}
    first = parents_by_statement(module, kept)
    keep_parents(kept, ids)
    assert ids <= set(kept)
    assert first == parents(module) == parents_by_statement(module, kept)
