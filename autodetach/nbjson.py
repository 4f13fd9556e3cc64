"""Replacing cells' sources in a notebook's JSON text and leaving every
other byte as it is: indentation, key order, escapes, number spellings,
newlines. A small scanner finds each cell's `source` value; the standard
decoder reads every value it steps over."""
from __future__ import annotations

import json

_DEC = json.JSONDecoder()
_WS = " \t\r\n"


class Unexpected(ValueError):
    pass


def _skip(s: str, i: int) -> int:
    while i < len(s) and s[i] in _WS:
        i += 1
    return i


def _expect(s: str, i: int, ch: str) -> int:
    if i >= len(s) or s[i] != ch:
        raise Unexpected(f"expected {ch!r} at {i}")
    return i + 1


def _members(s: str, i: int):
    """(key, start of its value) of the object at s[i]; the caller may read
    the value before the next member is looked for."""
    i = _skip(s, _expect(s, i, "{"))
    if s.startswith("}", i):
        return
    while True:
        key, i = _DEC.raw_decode(s, i)
        i = _skip(s, _expect(s, _skip(s, i), ":"))
        yield key, i
        _, i = _DEC.raw_decode(s, i)
        i = _skip(s, i)
        if s.startswith(",", i):
            i = _skip(s, i + 1)
        elif s.startswith("}", i):
            return
        else:
            raise Unexpected(f"expected ',' or '}}' at {i}")


def _elements(s: str, i: int):
    """(start, end) of each element of the array at s[i]."""
    i = _skip(s, _expect(s, i, "["))
    if s.startswith("]", i):
        return
    while True:
        _, end = _DEC.raw_decode(s, i)
        yield i, end
        i = _skip(s, end)
        if s.startswith(",", i):
            i = _skip(s, i + 1)
        elif s.startswith("]", i):
            return
        else:
            raise Unexpected(f"expected ',' or ']' at {i}")


def source_spans(text: str) -> dict:
    """{cell index: (start, end) of its "source" value in `text`}."""
    spans = {}
    for key, start in _members(text, _skip(text, 0)):
        if key != "cells":
            continue
        spans = {}
        for k, (cell, _) in enumerate(_elements(text, start)):
            if not text.startswith("{", cell):
                continue
            for ckey, vstart in _members(text, cell):
                if ckey == "source":
                    spans[k] = (vstart, _DEC.raw_decode(text, vstart)[1])
    return spans


def _render(text: str, start: int, end: int, value, ascii_: bool) -> str:
    """`value` (a string or a list of strings) written as the old value at
    text[start:end] was: a string as a string, a list with its item layout."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=ascii_)
    items = list(_elements(text, start))
    if not items:
        raise Unexpected("an empty list has no layout to follow")
    open_ws = text[start + 1:items[0][0]]
    close_ws = text[items[-1][1]:end - 1]
    sep = text[items[0][1]:items[1][0]] if len(items) > 1 else "," + open_ws
    if not value:
        return "[]"
    return "[" + open_ws + sep.join(json.dumps(v, ensure_ascii=ascii_) for v in value) + close_ws + "]"


def replace_sources(text: str, new: dict) -> str:
    """`text` with the sources of the cells in `new` ({cell index: str or
    list of str}) replaced. Raises ValueError when the layout is not one it
    can follow; the caller then re-serialises the whole notebook."""
    spans = source_spans(text)
    ascii_ = all(ord(c) < 128 for c in text)
    out, pos = [], 0
    for index in sorted(new):
        if index not in spans:
            raise Unexpected(f"cell {index} has no source")
        start, end = spans[index]
        out.append(text[pos:start])
        out.append(_render(text, start, end, new[index], ascii_))
        pos = end
    out.append(text[pos:])
    return "".join(out)
