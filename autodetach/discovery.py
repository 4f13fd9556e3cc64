"""Which files to check: *.py (and *.ipynb, when nbformat is installed)
under the given paths, minus the usual junk, what .gitignore excludes, and
the configured excludes. Files named explicitly are always checked."""
from __future__ import annotations

import os
from typing import Iterator


from .pathmatch import Globs

SKIP_DIRS = {
    ".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".venv", "venv", ".eggs",
    "node_modules", "build", "dist", "site-packages", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".autodetach_cache", "__pypackages__", ".ipynb_checkpoints",
}


def _gitignore(directory: str):
    path = os.path.join(directory, ".gitignore")
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    import pathspec  # only when a .gitignore is read: a warm `ci` run never needs it

    try:
        spec_class = getattr(pathspec, "GitIgnoreSpec", None)  # git's own edge cases (pathspec >= 0.10)
        if spec_class is not None:
            return spec_class.from_lines(lines)
        return pathspec.PathSpec.from_lines("gitwildmatch", lines)
    except ValueError:  # a pattern pathspec cannot read: ignore the file rather than fail
        return None


def _ancestor_specs(directory: str) -> list:
    """The .gitignore files above `directory`, up to the repository root (the
    nearest folder with a .git); none when `directory` is not in a repository."""
    d = os.path.dirname(os.path.abspath(directory))
    chain = []
    here = os.path.abspath(directory)
    if os.path.exists(os.path.join(here, ".git")):
        return []
    while True:
        chain.append(d)
        if os.path.exists(os.path.join(d, ".git")):
            break
        parent = os.path.dirname(d)
        if parent == d:
            return []  # not in a repository: .gitignore files above do not apply
        d = parent
    specs = []
    for base in reversed(chain):
        spec = _gitignore(base)
        if spec is not None:
            specs.append((base, spec))
    return specs


def _suffixes() -> tuple:
    from .notebook import available

    return (".py", ".ipynb") if available() else (".py",)


def iter_files(paths, exclude=(), root=".") -> Iterator[str]:
    seen = set()
    suffixes = _suffixes()
    root = os.path.abspath(root)
    for given in paths:
        if os.path.isfile(given):
            key = os.path.realpath(given)
            if key not in seen:
                seen.add(key)
                yield given
            continue
        if not os.path.isdir(given):
            continue  # the caller reports missing paths
        # A directory named on the command line is checked even if the
        # configuration excludes it (ruff's rule); excludes apply below it.
        given_rel = os.path.relpath(os.path.abspath(given), root)
        active = Globs([p for p in exclude if not Globs([p]).match(given_rel)] if given_rel != "." else exclude)
        # (directory, [(base_dir, spec), ...]) — nested .gitignore files apply below them
        ancestors = _ancestor_specs(given)
        if ancestors and _ignored_by(given, True, ancestors):
            ancestors = []  # named on the command line: checked even if git ignores it
        stack = [(given, ancestors)]
        while stack:
            d, specs = stack.pop()
            spec = _gitignore(d)
            if spec is not None:
                specs = specs + [(os.path.abspath(d), spec)]
            try:
                entries = sorted(os.scandir(d), key=lambda e: e.name)
            except OSError:
                continue
            subdirs = []
            # Per folder, not per file: 50k files spent most of their discovery here.
            rel_d = os.path.relpath(os.path.abspath(d), root)
            real_d = None
            for e in entries:
                full = e.path
                try:
                    is_dir = e.is_dir()
                except OSError:
                    continue
                rel = e.name if rel_d == "." else os.path.join(rel_d, e.name)
                if _ignored_by(full, is_dir, specs):
                    continue
                if active.match(rel):
                    continue
                if e.is_dir(follow_symlinks=False):
                    if e.name in SKIP_DIRS or e.name.endswith(".egg-info"):
                        continue
                    if os.path.isfile(os.path.join(full, "pyvenv.cfg")):
                        continue  # a virtualenv under any name
                    subdirs.append((full, specs))
                elif e.name.endswith(suffixes) and e.is_file():
                    # Two links to one file: checked once.
                    if e.is_symlink():
                        key = os.path.realpath(full)
                    else:
                        real_d = real_d or os.path.realpath(d)
                        key = os.path.join(real_d, e.name)
                    if key not in seen:
                        seen.add(key)
                        yield full
            stack.extend(reversed(subdirs))


def _ignored_by(path: str, is_dir: bool, specs) -> bool:
    """Git's rule: the deepest .gitignore with a matching pattern decides, and
    within a file the last matching pattern (a `!pattern` re-includes)."""
    if not specs:
        return False
    path = os.path.abspath(path)
    for base, spec in reversed(specs):
        rel = os.path.relpath(path, base).replace(os.sep, "/")
        if is_dir:
            rel += "/"
        check = getattr(spec, "check_file", None)
        if check is None:
            if spec.match_file(rel):
                return True
            continue
        verdict = check(rel).include
        if verdict is not None:
            return verdict
    return False
