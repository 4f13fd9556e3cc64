"""imports.ImportTable: the one place that says which name means torch."""
import textwrap

import libcst as cst
import pytest

from autodetach.imports import ImportTable


def _table(src):
    return ImportTable.from_module(cst.parse_module(textwrap.dedent(src)))


@pytest.mark.parametrize("src,alias", [
    ("import torch\n", "torch"),
    ("import torch as th\n", "th"),
    ("import torch.nn\n", "torch"),  # binds `torch`
    ("import torch as th\nimport torch\n", "torch"),  # the plain name preferred
    ("try:\n    import torch as th\nexcept ImportError:\n    pass\n", "th"),
    ("import torch.nn as tnn\n", None),
    ("from torch import nn\n", None),
    ("import torchvision\n", None),
    ("def f():\n    import torch\n", None),  # not visible at module level
])
def test_module_alias(src, alias):
    assert _table(src).module_alias("torch") == alias
