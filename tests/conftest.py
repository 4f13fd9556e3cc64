import os
import sys

import libcst
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


@pytest.fixture
def parses(monkeypatch):
    """The calls of libcst.parse_module (each still parses): whether, and how
    often, the engine parsed a file."""
    calls = []
    real = libcst.parse_module

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", counting)
    return calls
