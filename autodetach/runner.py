"""Runs the engine over many files: a streamed process pool, atomic writes,
diffs. One bad file never stops the batch."""
from __future__ import annotations

import difflib
import multiprocessing
import os
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

from .engine import Options, process_bytes
from .findings import FileResult
from .registry import by_code
from .textio import decode, write_atomic


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


_SETTINGS: Optional[Settings] = None
_RULES: list = []


def _init(settings: Settings) -> None:
    global _SETTINGS, _RULES
    _SETTINGS = settings
    table = by_code()
    _RULES = [table[c] for c in settings.codes]


def display_path(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def unified_diff(path: str, old: bytes, new: bytes) -> str:
    a = decode(old).text.splitlines(keepends=True)
    b = decode(new).text.splitlines(keepends=True)
    name = display_path(path)
    out = []
    for line in difflib.unified_diff(a, b, f"a/{name}", f"b/{name}"):
        if not line.endswith(("\n", "\r")):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


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
    res = process_bytes(data, shown, _RULES, opts)
    if res.new_source is not None:
        if settings.diff:
            res.diff = unified_diff(path, data, res.new_source)
        if settings.write:
            if not os.access(path, os.W_OK):
                res.errors.append({"path": shown, "message": "not fixed: the file is read-only"})
                res.write_failed = True
            else:
                try:
                    write_atomic(path, res.new_source)
                except OSError as exc:
                    res.errors.append({"path": shown, "message": f"cannot write: {exc.strerror or exc}"})
                    res.write_failed = True
    # Keep what travels back from workers small.
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
    with ctx.Pool(jobs, initializer=_init, initargs=(settings,)) as pool:
        chunk = max(1, min(16, len(files) // (jobs * 8)))
        yield from pool.imap(work, files, chunksize=chunk)
