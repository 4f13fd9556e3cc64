"""Finds the rules (one module per rule under autodetach/rules) and selects them."""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import Iterable, Optional

from .rule import Rule

DEFAULT_SELECT = ("ALL",)


class SelectionError(ValueError):
    pass


# Rules added at run time through `register` (tools embedding autodetach,
# and tests that need a rule of their own).
_EXTRA: list = []


def register(rule: type) -> type:
    """Add a Rule subclass to the registry (usable as a class decorator)."""
    if not (isinstance(rule, type) and issubclass(rule, Rule) and rule.code):
        raise TypeError("register() needs a Rule subclass with a code")
    if any(r.code == rule.code for r in all_rules()):
        raise ValueError(f"a rule with code {rule.code} is already registered")
    _EXTRA.append(rule)
    all_rules.cache_clear()
    return rule


def unregister(rule: type) -> None:
    if rule in _EXTRA:
        _EXTRA.remove(rule)
        all_rules.cache_clear()


@lru_cache(maxsize=None)
def all_rules() -> tuple:
    return tuple(sorted(_discovered() + tuple(_EXTRA), key=lambda r: r.code))


@lru_cache(maxsize=None)
def _discovered() -> tuple:
    from . import rules as pkg

    found = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if not info.name.startswith("ad"):
            continue
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule and obj.code:
                if obj.__module__ == mod.__name__:
                    found.append(obj)
    found.sort(key=lambda r: r.code)
    return tuple(found)


def by_code() -> dict:
    return {r.code: r for r in all_rules()}


def _matches(code: str, selector: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


def _weight(selector: str) -> int:
    return 0 if selector == "ALL" else len(selector)


def validate(selectors: Iterable[str], where: str = "") -> list:
    codes = [r.code for r in all_rules()]
    if isinstance(selectors, str):
        selectors = [selectors]
    out = []
    for s in selectors:
        s = s.strip().upper()
        if not s:
            continue
        if s != "ALL" and not any(c.startswith(s) for c in codes):
            raise SelectionError(f"{where}unknown rule selector '{s}' (see --list-rules)")
        out.append(s)
    return out


def select_rules(select: Optional[Iterable[str]] = None, ignore: Optional[Iterable[str]] = None,
                 extend_select: Optional[Iterable[str]] = None) -> list:
    sel = validate(select) if select else list(DEFAULT_SELECT)
    sel += validate(extend_select or ())
    ign = validate(ignore or ())
    chosen = []
    for r in all_rules():
        if not any(_matches(r.code, s) for s in sel):
            continue
        # The more specific selector wins, as in ruff.
        best_sel = max((_weight(s) for s in sel if _matches(r.code, s)), default=-1)
        best_ign = max((_weight(s) for s in ign if _matches(r.code, s)), default=-1)
        if best_ign >= 0 and best_ign >= best_sel:
            continue
        chosen.append(r)
    return chosen
