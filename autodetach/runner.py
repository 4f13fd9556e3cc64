"""Runs the engine over many files: a streamed process pool, atomic writes,
diffs. One bad file never stops the batch."""
from __future__ import annotations

import ctypes
import difflib
import multiprocessing
import os
import signal
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

from . import notebook
from .engine import Options, process_bytes
from .findings import FileResult
from .notebook import is_notebook
from .registry import by_code
from .textio import is_read_only, outside_roots, write_atomic


@dataclass
class Settings:
    codes: tuple  # selected rule codes
    fix: bool = False  # compute fixes
    write: bool = False  # write them back
    unsafe: bool = False
    diff: bool = False
    per_file_ignores: dict = field(default_factory=dict)
    root: str = "."
    cache_dir: Optional[str] = None
    keep_sources: bool = False  # --verify needs the original and fixed bytes
    # Real paths of the files and folders named on the command line: a write
    # never goes through a symbolic link to a file outside them.
    roots: tuple = ()


_SETTINGS: Optional[Settings] = None
_RULES: list = []
_CACHE = None


_PARENT: Optional[int] = None  # in a pool worker: the CLI's pid


def _die_with_parent(parent: int) -> None:
    """A pool worker ends when the CLI does, even on SIGKILL (Linux): the
    kernel sends SIGTERM when the parent dies. Its default action ends the
    worker; write_atomic holds it back until a write is whole."""
    global _PARENT
    _PARENT = parent
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the check before each write still holds
    if os.getppid() != parent:  # died before prctl took effect
        os._exit(1)


def _parent_gone() -> bool:
    return _PARENT is not None and os.getppid() != _PARENT


def _init(settings: Settings, parent: Optional[int] = None) -> None:
    global _SETTINGS, _RULES, _CACHE
    if parent is not None:
        _die_with_parent(parent)
    _SETTINGS = settings
    table = by_code()
    _RULES = [table[c] for c in settings.codes]
    _CACHE = None
    if settings.cache_dir:
        from .cache import Cache

        _CACHE = Cache(settings.cache_dir, settings.codes, settings.fix, settings.unsafe,
                       settings.diff, settings.write)


def display_path(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def _split_lines(data: bytes) -> list:
    # Only b"\n" ends a line for git and patch (not \x0c or \u2028).
    lines = data.split(b"\n")
    out = [ln + b"\n" for ln in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def unified_diff(path: str, old: bytes, new: bytes) -> str:
    """A git-style diff of the raw bytes (so `git apply` and `patch -p1`
    apply it whatever the file's encoding or newlines). Bytes that are not
    UTF-8 come back as surrogate escapes; write with errors="surrogateescape"."""
    name = display_path(path).encode("utf-8", "surrogateescape")
    out = []
    for line in difflib.diff_bytes(difflib.unified_diff, _split_lines(old), _split_lines(new),
                                   b"a/" + name, b"b/" + name):
        if not line.endswith(b"\n"):
            line += b"\n\\ No newline at end of file\n"
        out.append(line)
    return b"".join(out).decode("utf-8", "surrogateescape")
def _ignored_for(path: str, settings: Settings) -> frozenset:
    if not settings.per_file_ignores:
        return frozenset()
    from .config import Config

    return Config(per_file_ignores=settings.per_file_ignores, root=settings.root).ignored_for(path)


def work(path: str) -> FileResult:
    settings = _SETTINGS
    shown = display_path(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        res = FileResult(path=shown)
        res.errors.append({"path": shown, "message": f"cannot read: {exc.strerror or exc}"})
        return res
    opts = Options(fix=settings.fix, unsafe=settings.unsafe, ignore=_ignored_for(path, settings))
    key = None
    if _CACHE is not None:
        key = _CACHE.key(data, shown, opts.ignore)
        hit = _CACHE.get(key)
        if hit is not None:
            hit.path = shown
            return hit
    if is_notebook(path):
        res = notebook.process(data, shown, _RULES, opts, diff=settings.diff)
    else:
        res = process_bytes(data, shown, _RULES, opts)
    if res.new_source is not None:
        if settings.diff and not res.diff:
            res.diff = unified_diff(path, data, res.new_source)
        if settings.write:
            problem = None
            if _parent_gone():  # the CLI was killed: write nothing more
                raise SystemExit(1)
            target = outside_roots(path, settings.roots)
            if target is not None:
                problem = f"not fixed: a symbolic link to a file outside the paths given ({target})"
            elif is_read_only(path):
                problem = "not fixed: the file is read-only"
            else:
                try:
                    write_atomic(path, res.new_source)
                except OSError as exc:
                    problem = f"not fixed: cannot write: {exc.strerror or exc}"
            if problem is not None:
                # Nothing was written: report what the file still contains.
                again = notebook.process if is_notebook(path) else process_bytes
                unfixed = again(data, shown, _RULES, Options(fix=False, ignore=opts.ignore))
                res.findings = unfixed.findings
                res.fixed = 0
                res.errors.append({"path": shown, "message": problem})
                res.write_failed = True
    if key is not None and not (settings.write and res.new_source is not None):
        # A file whose fixes were written has new content: never served stale.
        _CACHE.put(key, res)
    # Keep what travels back from workers small.
    if not settings.keep_sources:
        res.old_source = None
        res.new_source = None
    return res


def run(files: Iterable[str], settings: Settings, jobs: int = 1) -> Iterator[FileResult]:
    files = list(files)
    if jobs <= 1 or len(files) < 4:
        _init(settings)
        for f in files:
            yield work(f)
        return
    ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    with ctx.Pool(jobs, initializer=_init, initargs=(settings, os.getpid())) as pool:
        chunk = max(1, min(16, len(files) // (jobs * 8)))
        yield from pool.imap(work, files, chunksize=chunk)
