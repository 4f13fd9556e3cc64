"""One glob dialect for every path pattern in the configuration (`exclude`,
`per-file-ignores`): git's, through pathspec, as ruff and pre-commit users
expect. `*` stays within one folder, `**` crosses folders, a pattern without
a `/` matches a file or folder of that name at any depth, and a folder's
pattern covers everything below it."""
from __future__ import annotations

import os
from functools import lru_cache


def _compile(patterns):
    if not patterns:
        return None
    import pathspec  # only when there are patterns: a warm `ci` run never needs it

    spec = getattr(pathspec, "GitIgnoreSpec", None)  # pathspec >= 0.10; "gitwildmatch" is deprecated in 1.x
    if spec is not None:
        return spec.from_lines(patterns)
    return pathspec.PathSpec.from_lines("gitwildmatch", patterns)


def _normal(pattern: str) -> str:
    pattern = pattern[2:] if pattern.startswith("./") else pattern
    return pattern.rstrip("/") or pattern


class Globs:
    """Patterns compiled once; `match` takes a path relative to their root,
    with forward slashes."""

    def __init__(self, patterns):
        self.patterns = tuple(_normal(p) for p in patterns)
        self._spec = _compile(self.patterns)

    def match(self, rel: str) -> bool:
        return bool(self.patterns) and self._spec.match_file(rel.replace(os.sep, "/"))

    def __reduce__(self):  # travel to pool and cluster workers as the patterns alone
        return (Globs, (self.patterns,))


class PerFileIgnores:
    """`per-file-ignores` compiled once: which rule codes a file ignores."""

    def __init__(self, table: dict, root: str):
        self.root = root
        self.table = {k: tuple(v) for k, v in table.items()}
        self._globs = [(Globs([pattern]), codes) for pattern, codes in self.table.items()]

    def __reduce__(self):
        return (PerFileIgnores, (self.table, self.root))

    def ignored_for(self, path: str) -> frozenset:
        if not self.table:
            return frozenset()
        rel = os.path.relpath(os.path.abspath(path), self.root)
        selectors = set()
        for globs, codes in self._globs:
            if globs.match(rel):
                selectors.update(codes)
        return _expand(frozenset(selectors)) if selectors else frozenset()


@lru_cache(maxsize=64)
def _expand(selectors: frozenset) -> frozenset:
    from .registry import all_rules

    # Prefixes (AD2) and ALL name every code they cover.
    return frozenset(r.code for r in all_rules()
                     if any(s == "ALL" or r.code.startswith(s) for s in selectors))
