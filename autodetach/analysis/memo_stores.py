"""A value a module memoizes on itself: computed once, on the first call that
finds it unset, and read back by every later call.

    def forward(self, x):
        if not hasattr(self, "_mean_cache"):      # or `if self._mean_cache is None:`
            self._mean_cache = solve(self.kernel(self.inducing), self.values)
        return self.kernel(x, self.inducing) @ self._mean_cache

When the value is computed from the module's trained parameters with the
graph on, the memo keeps that graph: the first backward through a prediction
frees it, and the next one walks into it again ("Trying to backward through
the graph a second time"); the memo also keeps values from before every later
optimizer step. A memo that some method clears or sets anew (a `train()`
override, a reset between steps) is state the class manages, and a memo built
under `torch.no_grad()` or from detached values carries no graph: the walk in
buffer_updates already gives those no graph, and `memo_guard` answers None
for a cleared one.
"""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes


def memo_guard(ctx, guards, key: str, value, methods) -> str | None:
    """The source of the enclosing test that checks `key` (`self.X`) is unset, when
    this store of `value` is a memo: the test is `hasattr(self, "X")` or
    `self.X is None` (either branch), the value does not read the old `self.X`
    (an average does), some method reads `self.X` apart from such tests, and no
    method but `__init__` clears or sets it anew (a `reset()` that only
    `__init__` calls here may be called by the module's users)."""
    attr = key.split(".", 1)[1] if key.startswith("self.") and key.count(".") == 1 else None
    if attr is None or any(isinstance(n, cst.Attribute) and dotted(n) == key for n in nodes(value)):
        return None
    test = next((t for t in reversed(guards) if _tests_unset(t, key, attr)), None)
    if test is None:
        return None
    stores = reads = 0
    for name, m in methods.items():
        if name == "__init__":
            continue
        checks = {id(n) for t in _unset_tests(m, key, attr) for n in nodes(t)}
        targets = {id(t) for n in nodes(m) if isinstance(n, (cst.AssignTarget, cst.AnnAssign, cst.For, cst.WithItem))
                   for t in _targets(getattr(n, "target", None) if not isinstance(n, cst.WithItem) else
                                     (n.asname.name if n.asname is not None else None)) if dotted(t) == key}
        stores += len(targets)
        for n in nodes(m):
            if isinstance(n, cst.Del) and any(dotted(t) == key for t in nodes(n.target)) or \
                    isinstance(n, cst.AugAssign) and dotted(n.target) == key:
                return None
            if isinstance(n, cst.Call) and dotted(n.func) in ("delattr", "setattr") and len(n.args) >= 2 and \
                    dotted(n.args[0].value) == "self" and _literal(n.args[1].value) == attr:
                return None
            if isinstance(n, cst.Attribute) and dotted(n) == key and id(n) not in checks and id(n) not in targets:
                reads += 1
    if stores != 1 or not reads:  # set anew elsewhere (a reset), or never read back
        return None
    return ctx.code(test).strip()


def _targets(t) -> list:
    """The names and attributes a target binds, through tuple and list unpacking."""
    if isinstance(t, (cst.Tuple, cst.List)):
        return [x for el in t.elements for x in _targets(el.value)]
    if isinstance(t, cst.StarredElement):
        return _targets(t.value)
    return [t] if t is not None else []


def _literal(e):
    return e.evaluated_value if isinstance(e, cst.SimpleString) else None


def _is_unset_test(n, key, attr) -> bool:
    """`hasattr(self, "X")`, `getattr(self, "X", None) is None`, `self.X is None` (or `is not None`)."""
    if isinstance(n, cst.Call) and dotted(n.func) == "hasattr" and len(n.args) == 2 and \
            dotted(n.args[0].value) == "self" and _literal(n.args[1].value) == attr:
        return True
    if isinstance(n, cst.Comparison) and len(n.comparisons) == 1 and \
            isinstance(n.comparisons[0].operator, (cst.Is, cst.IsNot)) and \
            dotted(n.comparisons[0].comparator) == "None":
        left = n.left
        if isinstance(left, cst.Call) and dotted(left.func) == "getattr" and len(left.args) >= 2 and \
                dotted(left.args[0].value) == "self" and _literal(left.args[1].value) == attr:
            return True
        return dotted(left) == key
    return False


def _tests_unset(test, key, attr) -> bool:
    return any(_is_unset_test(n, key, attr) for n in nodes(test))


def _unset_tests(m, key, attr) -> list:
    return [n for n in nodes(m) if _is_unset_test(n, key, attr)]
