"""Where a fix puts a new top-level statement (rules/_helpers.top_level_anchor)."""
import libcst as cst
import pytest

from autodetach.rules._helpers import top_level_anchor

CASES = [
    # (source, anchor for a new import, anchor for a new function)
    ('"""doc"""\nfrom __future__ import annotations\nimport os\nx = 1\n', "import os", "x = 1"),
    ('"doc" "more"\nimport os, sys; from a import b\n\ndef f(): pass\n', "import os, sys; from a import b",
     "def f(): pass"),
    ("x = 1\n'not a docstring'\n", "x = 1", "x = 1"),
    ("import os\nx = 1\nimport sys\n", "import os", "x = 1"),
    ("if True:\n    import os\n", "if True:", "if True:"),
    # a notebook's opening magics (`%matplotlib inline`), masked as `pass`, stay first
    ("pass  # autodetach-masked-1\nimport os\nx = 1\n", "import os", "x = 1"),
    ("pass  # autodetach-masked-1\npass  # autodetach-masked-2\nx = 1\n", "x = 1", "x = 1"),
    ("pass\nimport os\n", "pass", "pass"),
]


@pytest.mark.parametrize("src, for_import, for_function", CASES)
def test_top_level_anchor(src, for_import, for_function):
    module = cst.parse_module(src)
    for after_imports, want in ((False, for_import), (True, for_function)):
        stmt = top_level_anchor(module, after_imports=after_imports)
        assert module.code_for_node(stmt).strip().splitlines()[0].strip() == want


@pytest.mark.parametrize("src", ["", '"""doc"""\nimport os\n'])
def test_top_level_anchor_at_end(src):
    assert top_level_anchor(cst.parse_module(src), after_imports=True) is None
