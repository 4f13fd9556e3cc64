"""Project-local imports: find the file a name comes from and its summary.

`from losses import loss_fn`, `import utils` + `utils.repackage_hidden(h)`
and `from .losses import loss_fn` are looked up next to the importing file
and in its parent directories (how scripts are run from a project root).
An import that does not resolve to a file stays unseen code ("uncertain"),
exactly as before. Summaries are memoised per file by (size, mtime)."""
from __future__ import annotations

import hashlib
import os
import stat
from typing import Optional

import libcst as cst

from ..imports import ImportTable
from ..textio import read_regular, write_atomic
from .summaries import IMPORTS, OwnSummaries, Summary, summarize

_MEMO: dict = {}  # realpath -> ((size, mtime_ns), summaries)
_LAZY: dict = {}  # realpath -> characters, of the tables in _MEMO, oldest first
LAZY_CHARS = 1_000_000  # about 40 MB of stdlib-ast trees
_ORIGINALS: Optional[str] = None  # a --fix run's folder of the files it rewrote, as read
_DEPS: dict = {}  # realpath -> [size, mtime_ns] of files read since the last take_deps()
SEARCH_UP = 3  # parent directories searched for an absolute import
SKIP = ("torch", "numpy", "np", "math", "os", "sys", "collections", "itertools", "functools",
        "typing", "random", "time", "json", "re", "copy")


def keep_originals(folder: Optional[str]) -> None:
    """While set, every file is summarised as it was when the run began:
    a file's analysis must not depend on which neighbours the run has
    already fixed (the report, made on the untouched tree, would not show
    it, and the order of a pool's files would decide it)."""
    global _ORIGINALS
    _ORIGINALS = folder


def _original_file(real: str) -> str:
    name = hashlib.sha1(real.encode("utf-8", "surrogateescape")).hexdigest()
    return os.path.join(_ORIGINALS, name)


def save_original(path: str, data: bytes) -> None:
    """Keep `path`'s content as read, before the run replaces it; whole
    before the file is replaced (summaries_of relies on that order)."""
    if _ORIGINALS is None or not path.endswith(".py"):
        return
    dest = _original_file(os.path.realpath(path))
    write_atomic(dest, data, sync=False)  # rebuilt by the next run if lost


def _from_original(real: str) -> Optional[dict]:
    try:
        with open(_original_file(real), "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    _DEPS[real] = [-1, -1]  # not the content on disk: a cached result never matches it
    hit = _MEMO.get(("original", real))
    if hit is None:
        hit = _MEMO[("original", real)] = summarize(data.decode("utf-8", errors="replace"))
    return hit


def summaries_of(path: str) -> dict:
    real = os.path.realpath(path)
    if _ORIGINALS is not None:
        kept = _from_original(real)
        if kept is not None:
            return kept
    try:
        st = os.stat(path)
    except OSError:
        return {}
    if not stat.S_ISREG(st.st_mode):  # a FIFO named `x.py` would block the read
        return {}
    stamp = (st.st_size, st.st_mtime_ns)
    _DEPS[real] = list(stamp)
    hit = _MEMO.get(real)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    data = read_regular(path)
    if data is None:
        return {}
    text = data.decode("utf-8", errors="replace")
    if _ORIGINALS is not None:  # replaced while it was read: the original counts
        kept = _from_original(real)
        if kept is not None:
            return kept
    # Summarised as looked up (a caller asks for one function or class of a
    # big file): the table keeps the file's tree until then, so only the
    # last LAZY_CHARS of text read stay in the memo.
    out = OwnSummaries(text)
    _MEMO[real] = (stamp, out)
    _LAZY.pop(real, None)
    _LAZY[real] = len(text)
    while sum(_LAZY.values()) > LAZY_CHARS and len(_LAZY) > 1:
        oldest = next(iter(_LAZY))
        del _LAZY[oldest]
        _MEMO.pop(oldest, None)
    return out


def text_of(path: str) -> Optional[str]:
    """A project file's text, recorded as read (and as it was when a --fix
    run began), as summaries_of does; None when it cannot be read."""
    real = os.path.realpath(path)
    if _ORIGINALS is not None:
        try:
            with open(_original_file(real), "rb") as fh:
                data = fh.read()
            _DEPS[real] = [-1, -1]
            return data.decode("utf-8", errors="replace")
        except OSError:
            pass
    try:
        st = os.stat(path)
    except OSError:
        return None
    data = read_regular(path)
    if data is None:
        return None
    _DEPS[real] = [st.st_size, st.st_mtime_ns]
    return data.decode("utf-8", errors="replace")


def take_deps() -> dict:
    """Files whose summaries the analysis used since the last call: the
    result cache keeps them with a result and serves it only while they are
    unchanged."""
    out = dict(_DEPS)
    _DEPS.clear()
    return out


def record_deps(deps: dict) -> None:
    """The files another process's analysis read, as if read here (a
    cluster worker's, for the coordinator's result cache)."""
    _DEPS.clear()
    _DEPS.update(deps)


def record_dep(key: str, stamp: list) -> None:
    """A dependency that is not one file's content (project_index's listings)."""
    _DEPS[key] = stamp


def deps_current(deps) -> bool:
    for path, stamp in (deps or {}).items():
        if path.startswith("\0"):
            from .project_index import listing_current
            if not listing_current(path, stamp):
                return False
            continue
        try:
            st = os.stat(path)
        except OSError:
            return False
        if [st.st_size, st.st_mtime_ns] != list(stamp):
            return False
    return True


def _module_file(base: str, parts: list) -> Optional[str]:
    if not parts:
        init = os.path.join(base, "__init__.py")
        return init if os.path.isfile(init) else None
    stem = os.path.join(base, *parts)
    for cand in (stem + ".py", os.path.join(stem, "__init__.py")):
        if os.path.isfile(cand):
            return cand
    return None


def module_file_up(base: str, parts: list) -> Optional[str]:
    """The file of module `parts` (an absolute import) in `base` or up to
    SEARCH_UP directories above it (the project root is not known), or None."""
    start = base
    for _ in range(SEARCH_UP + 1):
        found = _module_file(base, parts)
        if found is not None:
            return found
        parent = os.path.dirname(base)
        if parent == base:
            break
        base = parent
    return _own_package(start, parts)


def _own_package(base: str, parts: list) -> Optional[str]:
    """`TTS.utils.audio` read inside the checkout of the package TTS itself,
    whose directory has another name (the repository's root is the package,
    installed by its setup.py): the file under the top-level package above
    `base`, the import's first name taken for it, or None."""
    if len(parts) < 2:
        return None
    for _ in range(SEARCH_UP + 1):
        parent = os.path.dirname(base)
        package = os.path.isfile(os.path.join(base, "__init__.py"))
        if package and not os.path.isfile(os.path.join(parent, "__init__.py")):
            return _module_file(base, parts[1:])  # base is the top-level package
        if parent == base:
            break
        base = parent
    return None


def relative_imports(module: cst.Module) -> dict:
    """local name -> (level, module, name) for `from .x import name` (the
    import table's, which reads them inside functions and guards too)."""
    return ImportTable.from_module(module).relative


class Project:
    """Resolves calls in one file to summaries of project-local functions."""

    def __init__(self, path: str, module: cst.Module) -> None:
        self.dir = os.path.dirname(os.path.abspath(path)) if path and path != "<string>" else None
        self.module = module
        self._rel: Optional[dict] = None

    def lookup(self, qualified: Optional[str], key: Optional[str]) -> Optional[Summary]:
        """The summary of the function `qualified` (through absolute imports)
        or `key` (a relatively imported name), or None when not found."""
        if self.dir is None:
            return None
        if qualified:
            head = qualified.split(".")[0]
            if head in SKIP or "." not in qualified:
                return None
            parts = qualified.split(".")
            base = self.dir
            for _ in range(SEARCH_UP + 1):
                found = self._in_module(base, parts)
                if found is not None:
                    return found
                parent = os.path.dirname(base)
                if parent == base:
                    break
                base = parent
            f = _own_package(self.dir, parts[:-1])
            return find(f, parts[-1])[0] if f is not None else None
        if key:
            if self._rel is None:
                self._rel = relative_imports(self.module)
            head, _, rest = key.partition(".")
            hit = self._rel.get(head)
            if hit is None:
                return None
            level, mod, name = hit
            base = self.dir
            for _ in range(level - 1):
                base = os.path.dirname(base)
            parts = (mod.split(".") if mod else []) + [name] + (rest.split(".") if rest else [])
            return self._in_module(base, parts)
        return None

    def method(self, qualified_class: Optional[str], meth: str) -> Optional[tuple]:
        """(summary, file) of method `meth` of a class imported from a file
        of this project (`from trainer import Trainer`), or None."""
        if self.dir is None or not qualified_class or "." not in qualified_class:
            return None
        parts = qualified_class.split(".")
        if parts[0] in SKIP:
            return None
        f = module_file_up(self.dir, parts[:-1])
        if f is None:
            return None
        found, f = find(f, f"{parts[-1]}.{meth}")
        return (found, f) if found is not None else None

    def relative_method(self, name: str, meth: str) -> Optional[Summary]:
        """The summary of method `meth` of class `name`, imported relatively
        (`from .model import Scalar`), or None."""
        found = self.relative_method_at(name, meth)
        return found[0] if found is not None else None

    def relative_method_at(self, name: Optional[str], meth: str) -> Optional[tuple]:
        """(summary, file) of method `meth` of class `name` imported relatively, or None."""
        if self.dir is None or not name:
            return None
        if self._rel is None:
            self._rel = relative_imports(self.module)
        hit = self._rel.get(name)
        if hit is None or not hit[1]:
            return None
        level, mod, cls = hit
        base = self.dir
        for _ in range(level - 1):
            base = os.path.dirname(base)
        f = _module_file(base, mod.split("."))
        if f is None:
            return None
        found, f = find(f, f"{cls}.{meth}")
        return (found, f) if found is not None else None

    def _in_module(self, base: str, parts: list) -> Optional[Summary]:
        # a.b.f: function f of a/b.py (or of a/b/__init__.py)
        if len(parts) < 2:
            return None
        f = _module_file(base, parts[:-1])
        if f is None:
            return None
        return find(f, parts[-1])[0]


def find(path: str, name: str, hops: int = 2) -> tuple:
    """(summary, file) of `name` (`f` or `C.m`) in `path`, following the
    file's `from x import C` (a package `__init__` that re-exports), or
    (None, None)."""
    table = summaries_of(path)
    hit = table.get(name)
    if hit is not None:
        return hit, path
    head, dot, rest = name.partition(".")
    src = table.get(IMPORTS, {}).get(head) if _may_name(table, head) else None
    if src is None and dot and "." not in rest and _may_name(table, head, "class"):
        # a method the class inherits: its bases, here or imported (`class ARGVA(ARGA)`)
        found = _inherited(path, head, rest, hops)
        if found[0] is not None:
            return found
    if src is None and hops > 0:
        # a package `__init__` that re-exports with `from .models import *`, last one first
        from .reexports import star_imports

        for level, mod in reversed(star_imports(path)):
            f = _import_file(path, level, mod.split(".") if mod else [])
            if f is not None and os.path.realpath(f) != os.path.realpath(path):
                found = find(f, name, hops - 1)
                if found[0] is not None:
                    return found
        return None, None
    if src is None or hops == 0:
        return None, None
    level, mod, orig = src
    parts = mod.split(".") if mod else []
    base = os.path.dirname(path)
    if level:
        for _ in range(level - 1):
            base = os.path.dirname(base)
        f = _module_file(base, parts) if parts else None
    else:
        f = None
        for _ in range(SEARCH_UP + 3):  # the package root is above the re-exporting package
            f = _module_file(base, parts)
            if f is not None or os.path.dirname(base) == base:
                break
            base = os.path.dirname(base)
    if f is None or os.path.realpath(f) == os.path.realpath(path):
        return None, None
    return find(f, orig + dot + rest, hops - 1)


def _may_name(table, name: str, kind: str = "") -> bool:
    """Could the file import `name` (or, with kind "class", define that
    class)? False only when its text proves it cannot: no parse needed."""
    if not isinstance(table, OwnSummaries):
        return True
    return table.declares(kind, name) if kind else table.mentions(name)


def _import_file(path: str, level: int, parts: list) -> Optional[str]:
    """The file a `from` import in `path` reads (relative, or absolute up the directories)."""
    base = os.path.dirname(path)
    if level:
        for _ in range(level - 1):
            base = os.path.dirname(base)
        return _module_file(base, parts) if parts else None
    for _ in range(SEARCH_UP + 3):
        f = _module_file(base, parts)
        if f is not None or os.path.dirname(base) == base:
            return f
        base = os.path.dirname(base)
    return None


def _inherited(path: str, cls: str, meth: str, hops: int) -> tuple:
    """(summary, file) of `meth` in the first base of `cls` (defined in `path`) that
    has it, depth first as Python's lookup goes for single inheritance; (None, None)."""
    from .reexports import class_bases

    table = summaries_of(path)
    todo, seen = [cls], {cls}
    while todo:
        for base in class_bases(path, todo.pop(0)) or ():
            if "." in base or base in seen:
                continue  # `nn.Module`, `models.Base`: not followed
            seen.add(base)
            hit = table.get(f"{base}.{meth}")
            if hit is not None:
                return hit, path
            if class_bases(path, base) is not None:
                todo.append(base)
            elif hops > 0 and base in table.get(IMPORTS, {}):
                found = find(path, f"{base}.{meth}", hops)  # a base imported from another file
                if found[0] is not None:
                    return found
    return None, None
