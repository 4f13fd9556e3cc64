"""analysis.kept_args: which of the file's plain classes keep what they are given."""
import textwrap

import libcst as cst
import pytest

from autodetach.analysis.kept_args import keeps_arguments
from autodetach.context import FileContext

SRC = """
from dataclasses import dataclass
import dataclasses


@dataclass
class Output:
    logits: object


@dataclasses.dataclass(frozen=True)
class Frozen:
    x: object


class Holder:
    def __init__(self, value):
        self._value = value


class Pair:
    def __init__(self, a, b):
        self.items = (a, b)


class Listed:
    def __init__(self, *xs):
        self.items = []
        self.items.extend(xs)


class Child(Base):
    def __init__(self, t):
        super().__init__(t)


class Config:
    def __init__(self, lr):
        print(lr)
        self.steps = 0


class Inherits(dict):
    pass


class Empty:
    pass
"""


@pytest.mark.parametrize("name, kept", [
    ("Output", True), ("Frozen", True), ("Holder", True), ("Pair", True), ("Listed", True), ("Child", True),
    ("Inherits", True), ("Config", False), ("Empty", False), ("Missing", False),
])
def test_keeps_arguments(name, kept):
    ctx = FileContext(cst.parse_module(textwrap.dedent(SRC)))
    assert keeps_arguments(ctx, name) is kept
