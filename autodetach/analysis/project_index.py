"""Which files of the project define or call a given method, from bytes and
the stdlib-`ast` summaries (never libcst).

A class picked at run time (`find_class(name)(...)`) or a meter whose callers
live elsewhere is resolved by looking through the project's files: the file's
own directory, recursively, and for callers also the `.py` files directly in
up to two parent directories (where a script importing a package sits; such a file counts
only when its bytes also name the folder it would import from, so stray scripts beside a
checkout do not change the result). A file is summarised only when its bytes mention the
name; listings are memoised per process."""
from __future__ import annotations

import hashlib
import os

from ..textio import read_regular
from . import project
from .project import summaries_of
from .summaries import methods_named

SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist"}
MAX_FILES = 3000
UP = 2
MARKERS = (".git", "setup.py", "pyproject.toml", "setup.cfg")

_FILES: dict = {}
_ABOVE: dict = {}  # (start, up) -> {file above start: the folder name it must mention}
_MENTIONS: dict = {}
_STAMPS: dict = {}  # (start, up) -> the listing's stamp
LISTING = "\0listing\0"  # a deps key naming a folder's listing, not a file


def project_files(path: str, up: bool = True) -> tuple:
    start = os.path.dirname(os.path.abspath(path))
    hit = _FILES.get((start, up))
    if hit is not None:
        return hit
    out = []
    for root, dirs, files in os.walk(start):
        dirs[:] = sorted(name for name in dirs if not name.startswith(".") and name not in SKIP_DIRS)
        out += [os.path.join(root, f) for f in sorted(files) if f.endswith(".py")]
        if len(out) > MAX_FILES:
            break
    above = {}
    directory = start
    for _ in range(UP if up else 0):
        if any(os.path.exists(os.path.join(directory, m)) for m in MARKERS):
            break  # the repository's root: nothing above belongs to the project
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        child, directory = os.path.basename(directory).encode(), parent
        try:
            level = [os.path.join(directory, f) for f in sorted(os.listdir(directory)) if f.endswith(".py")]
        except OSError:
            break
        out += level
        above.update((f, child) for f in level)
    _ABOVE[(start, up)] = above
    _FILES[(start, up)] = tuple(out[:MAX_FILES])
    return _FILES[(start, up)]


def listing_stamp(start: str, up: bool) -> list:
    """[count, digest] of the (path, size, mtime) of every file project_files
    lists from the folder `start`: which files mention a name changes when
    any of them changes, appears or goes, not only the ones that matched."""
    hit = _STAMPS.get((start, up))
    if hit is None:
        digest = hashlib.sha1()
        files = project_files(os.path.join(start, "_"), up)
        for f in files:
            try:
                st = os.stat(f)
                digest.update(f"{f}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
            except OSError:
                digest.update(f"{f}\0-\n".encode("utf-8", "surrogateescape"))
        hit = _STAMPS[(start, up)] = [len(files), digest.hexdigest()]
    return hit


def listing_current(key: str, stamp) -> bool:
    """Is a LISTING deps entry (as files_mentioning records it) still true:
    the listing unchanged, or else the same files mentioning the name?"""
    start, up, needle = key[len(LISTING):].split("\0")
    count, digest, *hits = stamp
    if listing_stamp(start, up == "1") == [count, digest]:
        return True
    return _mentioning(start, bytes.fromhex(needle), up == "1") == hits


def files_mentioning(path: str, needle: bytes, up: bool = True) -> list:
    start = os.path.dirname(os.path.abspath(path))
    hit = _mentioning(start, needle, up)
    # A cached result that looked for callers holds while the same files mention the name.
    project.record_dep(f"{LISTING}{start}\0{int(up)}\0{needle.hex()}", listing_stamp(start, up) + hit)
    return hit


def _mentioning(start: str, needle: bytes, up: bool) -> list:
    key = (start, needle, up)
    hit = _MENTIONS.get(key)
    if hit is None:
        hit = []
        files = project_files(os.path.join(start, "_"), up)
        above = _ABOVE.get((start, up), {})
        for f in files:
            data = read_regular(f)
            if data is not None and needle in data and above.get(f, b"") in data:
                hit.append(f)
        _MENTIONS[key] = hit
    return hit


def project_root(path: str) -> str:
    """The directory up to UP levels above the file's that holds a
    repository marker (setup.py, .git), else the file's own directory."""
    directory = os.path.dirname(os.path.abspath(path))
    probe = directory
    for _ in range(UP + 1):
        if any(os.path.exists(os.path.join(probe, m)) for m in MARKERS):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    return directory


def package_root(path: str, up: int = 5) -> str:
    """project_root, or, where no marker is found there, the directory holding
    the file's top package (the first directory up without `__init__.py`,
    at most `up` levels: `hive/utils/logging.py` -> the folder holding `hive`)."""
    root = project_root(path)
    directory = os.path.dirname(os.path.abspath(path))
    if root != directory:
        return root
    for _ in range(up):
        if not os.path.exists(os.path.join(directory, "__init__.py")):
            break
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return directory


def classes_with_method(path: str, meth: str, whole: bool = False) -> list:
    """(class, summary, file) for each class that defines `meth` in the file's
    directory and below (where a script imports its classes from); with
    `whole`, below the project's root (an object handed in by a caller)."""
    out = []
    start = os.path.join(project_root(path), "_") if whole else path
    for f in files_mentioning(start, f"def {meth}(".encode(), up=False):
        for name, s in methods_named(summaries_of(f), meth):
            out.append((name.partition(".")[0], s, f))
    return out
