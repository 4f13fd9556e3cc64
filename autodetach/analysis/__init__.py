"""Analysis shared by the rules: built once per file, queried by every rule."""
from __future__ import annotations


def build(ctx):
    from .model import Analysis

    return Analysis(ctx)
