"""The one override of an abstract method, when this file has it.

A base class's loop calls a method it leaves to subclasses:

    class Engine:
        def run(self, batches):
            for mb in batches:
                loss, out = self.forward_step(mb)
                loss.backward()
                outputs.append(out)

        def forward_step(self, mb):
            raise NotImplementedError

    class LMEngine(Engine):
        def forward_step(self, mb):
            ...
            return loss, {"model_output": logits}

The stub's body says nothing of what runs (stubs.py). When exactly one
subclass in the file defines the method, that override is what the loop runs
for the file's own engines; a subclass in another file or in user code may
define another, so what is read there is an inference, and the note says so.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst


def abstract_def(fn) -> bool:
    """Is `fn` (a libcst function) an abstract method: its body, docstring
    aside, only `raise NotImplementedError`, or, under `@abstractmethod`,
    only `pass` / `...` / that raise?"""
    if not isinstance(fn, cst.FunctionDef) or not isinstance(fn.body, cst.IndentedBlock):
        return False
    body = [small for line in fn.body.body if isinstance(line, cst.SimpleStatementLine) for small in line.body]
    if len(body) != sum(len(line.body) if isinstance(line, cst.SimpleStatementLine) else 1 for line in fn.body.body):
        return False  # a compound statement: real code
    body = [s for s in body if not _docstring(s)]
    if len(body) == 1 and _raises_not_implemented(body[0]):
        return True
    return any(_abstract_decorator(d.decorator) for d in fn.decorators) and \
        all(_placeholder(s) or _raises_not_implemented(s) for s in body)


def sole_override(names, cls: Optional[str], meth: str) -> Optional[tuple]:
    """(subclass name, its FunctionDef) when `cls.meth` is abstract here and
    exactly one class of this file below `cls` defines `meth` as real code."""
    if not cls:
        return None
    own = names.class_method(cls, meth)
    if own is None or not abstract_def(own):
        return None
    found = [(sub, fn) for (sub, name), fn in names.methods.items()
             if name == meth and sub != cls and not abstract_def(fn) and _below(names, sub, cls)]
    return found[0] if len(found) == 1 else None


def note(cls: str, meth: str, sub: str) -> str:
    return (f"`{cls}.{meth}` is abstract; what it returns is read from `{sub}.{meth}`, its one override in "
            f"this file (a subclass elsewhere may return something else)")


def _below(names, sub: str, cls: str, depth: int = 0) -> bool:
    if depth > 5:
        return False
    return any(base == cls or _below(names, base, cls, depth + 1) for base in names.bases.get(sub, ()))


def _docstring(small) -> bool:
    return isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))


def _raises_not_implemented(small) -> bool:
    if not isinstance(small, cst.Raise) or small.exc is None:
        return False
    exc = small.exc.func if isinstance(small.exc, cst.Call) else small.exc
    return isinstance(exc, cst.Name) and exc.value == "NotImplementedError"


def _placeholder(small) -> bool:
    return isinstance(small, cst.Pass) or isinstance(small, cst.Expr) and isinstance(small.value, cst.Ellipsis)


def _abstract_decorator(dec) -> bool:
    name = dec.attr.value if isinstance(dec, cst.Attribute) else dec.value if isinstance(dec, cst.Name) else ""
    return name == "abstractmethod"
