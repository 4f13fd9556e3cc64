"""Runs the engine over many files: a streamed process pool, atomic writes,
diffs. One bad file never stops the batch."""
from __future__ import annotations

import ctypes
import dataclasses
import difflib
import os
import shutil
import signal
import tempfile
from dataclasses import dataclass, field
from functools import partial
from typing import Iterable, Iterator, Optional

from . import notebook
from .analysis.project import keep_originals, save_original
from .engine import Options, process_bytes
from .executors import LocalPool, WorkerDied
from .findings import FileResult
from .notebook import is_notebook
from .pathmatch import PerFileIgnores
from .registry import by_code
from .textio import CHANGED_SINCE_READ, content_hash, write_fixed


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
    # With write: a folder where each file is kept as read before its fix
    # replaces it (analysis.project.keep_originals); set by run_unordered.
    originals: Optional[str] = None
    _ignores: PerFileIgnores = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        # Compiled once here, not for every file.
        self._ignores = PerFileIgnores(self.per_file_ignores, self.root)

    def ignored_for(self, path: str) -> frozenset:
        """The rule codes `per-file-ignores` turns off for `path`."""
        return self._ignores.ignored_for(path)


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


def rules_for(codes) -> list:
    table = by_code()
    return [table[c] for c in codes if c in table]


def _init(settings: Settings, parent: Optional[int] = None) -> None:
    global _SETTINGS, _RULES, _CACHE
    if parent is not None:
        _die_with_parent(parent)
    _SETTINGS = settings
    keep_originals(settings.originals)
    _RULES = rules_for(settings.codes)
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


def patch_path(path: str) -> str:
    """The name in a patch header: relative to the working directory, or for
    a file outside it the absolute path without its root, as `git diff
    --no-index` writes it (`a//tmp/x.py` is an invalid path to `git apply`);
    such a patch applies from `/`."""
    shown = display_path(path)
    if os.path.isabs(shown):
        shown = os.path.splitdrive(shown)[1].replace(os.sep, "/").lstrip("/")
    return shown


def unified_diff(path: str, old: bytes, new: bytes) -> str:
    """A git-style diff of the raw bytes (so `git apply` and `patch -p1`
    apply it whatever the file's encoding or newlines). Bytes that are not
    UTF-8 come back as surrogate escapes; write with errors="surrogateescape"."""
    name = patch_path(path).encode("utf-8", "surrogateescape")
    out = []
    for line in difflib.diff_bytes(difflib.unified_diff, _split_lines(old), _split_lines(new),
                                   b"a/" + name, b"b/" + name):
        if not line.endswith(b"\n"):
            line += b"\n\\ No newline at end of file\n"
        out.append(line)
    return b"".join(out).decode("utf-8", "surrogateescape")


def _read(path: str, shown: str):
    """(bytes, None) or (None, a result saying the file cannot be read)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(), None
    except OSError as exc:
        res = FileResult(path=shown)
        res.errors.append({"path": shown, "message": f"cannot read: {exc.strerror or exc}"})
        return None, res


def _options(path: str, settings: Settings) -> Options:
    return Options(fix=settings.fix, unsafe=settings.unsafe, ignore=settings.ignored_for(path))


def _cached(data: bytes, shown: str, opts: Options):
    """(cache key or None, the cached result or None)."""
    if _CACHE is None:
        return None, None
    key = _CACHE.key(data, shown, opts.ignore)
    hit = _CACHE.get(key)
    if hit is not None:
        hit.path = shown
    return key, hit


def _finish(path: str, data: bytes, res: FileResult, key, opts: Options) -> FileResult:
    """Everything after the analysis: the diff, the write, the cache. Runs
    where the files are: a pool worker, or the coordinator of a cluster."""
    settings = _SETTINGS
    if res.new_source is not None:
        if settings.diff and not res.diff:
            res.diff = unified_diff(path, data, res.new_source)
        if settings.write:
            if _parent_gone():  # the CLI was killed: write nothing more
                raise SystemExit(1)
            save_original(path, data)
            write_back(path, data, res, settings.roots, opts.ignore)
    if key is not None and not (settings.write and res.new_source is not None):
        # A file whose fixes were written has new content: never served stale.
        _CACHE.put(key, res)
    # Keep what travels back from workers small.
    if not settings.keep_sources:
        res.old_source = None
        res.new_source = None
    return res


def write_back(path: str, data: bytes, res: FileResult, roots, ignore, rules=None) -> None:
    """Write res.new_source over `path`, which held `data`. When nothing is
    written, `res` says why and reports what the file still contains
    (nothing known when someone else changed it)."""
    problem = write_fixed(path, res.new_source, roots, expect=content_hash(data))
    if problem is None:
        return
    changed = problem == CHANGED_SINCE_READ
    res.findings = [] if changed else analyse(
        path, data, res.path, Options(fix=False, ignore=ignore), rules).findings
    res.fixed = 0
    res.errors.append({"path": res.path, "message": problem})
    res.write_failed = True


def analyse(path: str, data: bytes, shown: str, opts: Options, rules=None, diff: bool = False) -> FileResult:
    """The engine on one file's bytes: a notebook cell by cell, else as Python."""
    rules = _RULES if rules is None else rules
    if is_notebook(path):
        return notebook.process(data, shown, rules, opts, diff=diff)
    return process_bytes(data, shown, rules, opts)


def work(path: str) -> FileResult:
    """One file, start to end, in a pool worker."""
    shown = display_path(path)
    data, failed = _read(path, shown)
    if failed is not None:
        return failed
    opts = _options(path, _SETTINGS)
    key, hit = _cached(data, shown, opts)
    if hit is not None:
        return hit
    return _finish(path, data, analyse(path, data, shown, opts, diff=_SETTINGS.diff), key, opts)


def _work_at(item) -> tuple:
    i, path = item
    return i, work(path)


_CODES: tuple = ()


def compute(item) -> tuple:
    """The analysis of one file on a cluster worker, a pure function of
    the file's bytes and the settings: (index, result, the project files its
    analysis read). Nothing is read or written here but those imports."""
    global _CODES, _RULES
    i, shown, data, codes, opts = item
    if codes != _CODES:
        table = by_code()
        _RULES, _CODES = [table[c] for c in codes], codes
    from .analysis.project import take_deps

    take_deps()
    res = analyse(shown, data, shown, opts, diff=_SETTINGS.diff if _SETTINGS is not None else False)
    res.old_source = None  # the coordinator has it
    return i, res, take_deps()


def _remote(files: list, settings: Settings, executor) -> Iterator[tuple]:
    """The coordinator's side: read each file, serve cache hits, send the
    rest as bytes, then diff, write and cache what comes back."""
    from .analysis.project import record_deps

    _init(settings)
    pending: dict = {}  # index -> (path, bytes, cache key, options), only while in flight
    ready: list = []  # results found without the cluster (unreadable, cached)

    def items():
        for i, path in enumerate(files):
            shown = display_path(path)
            data, failed = _read(path, shown)
            if failed is not None:
                ready.append((i, failed))
                continue
            opts = _options(path, settings)
            key, hit = _cached(data, shown, opts)
            if hit is not None:
                ready.append((i, hit))
                continue
            pending[i] = (path, data, key, opts)
            yield i, shown, data, settings.codes, opts

    for i, res, deps in executor.map_unordered(compute, items()):
        while ready:
            yield ready.pop()
        path, data, key, opts = pending.pop(i)
        res.old_source = data
        record_deps(deps)
        yield i, _finish(path, data, res, key, opts)
    while ready:
        yield ready.pop()


def _remove_stale_originals() -> None:
    """The folders of runs that were killed (SIGKILL skips their cleanup)."""
    base = tempfile.gettempdir()
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        parts = name.split("-")
        if name.startswith("autodetach-originals-") and len(parts) > 3 and parts[2].isdigit():
            try:
                os.kill(int(parts[2]), 0)
            except ProcessLookupError:
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
            except OSError:
                pass  # alive, another user's


def run_unordered(files: Iterable[str], settings: Settings, jobs: int = 1, executor=None) -> Iterator[tuple]:
    """(index in `files`, result) as each file is done. `executor`: None
    for the local process pool of `jobs` workers, or one from
    `executors.make` (a cluster). WorkerDied when a local worker dies."""
    files = list(files)
    if executor is not None and not executor.shares_files:
        yield from _remote(files, settings, executor)
        return
    if settings.write and settings.originals is None:
        _remove_stale_originals()
        folder = tempfile.mkdtemp(prefix=f"autodetach-originals-{os.getpid()}-")
        try:
            yield from run_unordered(files, dataclasses.replace(settings, originals=folder), jobs, executor)
        finally:
            keep_originals(None)
            shutil.rmtree(folder, ignore_errors=True)
        return
    if executor is None and (jobs <= 1 or len(files) < 4):
        _init(settings)
        for i, f in enumerate(files):
            yield i, work(f)
        return
    chunk = max(1, min(16, len(files) // (jobs * 8)))
    pool = executor or LocalPool(jobs, _init, (settings, os.getpid()), batch=chunk)
    yield from pool.map_unordered(_work_at, enumerate(files))


WORKER_DIED = ("not checked: a worker process died while this file was in flight (killed by the "
               "system, out of memory?); a fix may or may not have been written: run again")


def _died(path: str) -> FileResult:
    shown = display_path(path)
    res = FileResult(path=shown)
    res.errors.append({"path": shown, "message": WORKER_DIED})
    return res


def run(files: Iterable[str], settings: Settings, jobs: int = 1, executor=None) -> Iterator[FileResult]:
    """Results in the order of `files`. When a local worker dies, the files
    not answered yet get one error each instead of a hang."""
    files = list(files)
    waiting: dict = {}  # results that came before those of earlier files
    nxt = 0
    try:
        for i, res in run_unordered(files, settings, jobs, executor):
            waiting[i] = res
            while nxt in waiting:
                yield waiting.pop(nxt)
                nxt += 1
    except WorkerDied:
        for i in range(nxt, len(files)):
            yield waiting.pop(i) if i in waiting else _died(files[i])


# ------------------------------------------------------------- the seam
# The per-file work as a pure function of (path, bytes, settings) returning
# a value: it reads and writes nothing, so an executor may run it anywhere
# and the caller (the coordinator) writes files. `run_bytes` streams it over
# a local process pool; another executor only has to map the same function.

_FUNC = None  # in a pool worker: the function run_bytes maps


def process_file(path: str, data: bytes, settings: Settings) -> FileResult:
    """Check (and with settings.fix, fix) one file's bytes. Never raises."""
    rules = rules_for(settings.codes)
    opts = Options(fix=settings.fix, unsafe=settings.unsafe, ignore=settings.ignored_for(path))
    res = analyse(path, data, path, opts, rules=rules, diff=settings.diff)
    if not settings.keep_sources:
        res.old_source = None  # new_source stays: the caller writes it
    return res


def _init_func(settings: Settings, parent: Optional[int], func) -> None:
    global _FUNC
    _init(settings, parent)
    _FUNC = func


def _apply(item):
    tag, path, data = item
    return tag, _FUNC(path, data, _SETTINGS)


def _apply_to(func, settings: Settings, item):
    """func on a cluster worker, where no pool initialiser ran."""
    tag, path, data = item
    return tag, func(path, data, settings)


def run_bytes(items: Iterable[tuple], settings: Settings, jobs: int = 1, func=process_file,
              window: int = 0, executor=None) -> Iterator[tuple]:
    """Map func(path, data, settings) over items (tag, path, data); yield
    (tag, value) as each value arrives, in any order. At most `window` items
    are in flight, so memory does not grow with the number of files. `items`
    is consumed from a pool thread when jobs > 1. `executor`: None for the
    local pool, or a cluster from `executors.make`. WorkerDied when a local
    worker dies."""
    if executor is not None:
        yield from executor.map_unordered(partial(_apply_to, func, settings), items)
        return
    if jobs <= 1:
        for tag, path, data in items:
            yield tag, func(path, data, settings)
        return
    pool = LocalPool(jobs, _init_func, (settings, os.getpid(), func), window=window or jobs * 16)
    yield from pool.map_unordered(_apply, items)
