"""The result cache: a re-run skips files whose content has not changed.

One entry per file, named by a hash of everything the result depends on:
the file's bytes and shown path, the tool (its version and a fingerprint of
its own source, so an edited rule never serves old results), libcst and
Python versions, the selected rule codes and the per-file ignores in force.
The entry maps a mode (report, --diff, --fix, unsafe or not) to the result.
A result with no findings is valid in every mode: in --fix mode a cached
"nothing to fix" skips the file.

Never cached: results with errors or crashes, and results whose fixes were
written back (the file's content, hence its key, has changed; the next run
computes and caches the new content). Entries are written atomically; an
entry that cannot be read or decoded is ignored (a miss), never an error.

Location: `.autodetach_cache/` in the project root (the directory of the
configuration file; with no configuration file, the working directory, as
ruff does, so that a scan never writes into the tree it reads, such as an
installed package), or `$XDG_CACHE_HOME/autodetach/<hash of root>` when
XDG_CACHE_HOME is set, or when the project root is not writable.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from typing import Optional

from .findings import FileResult, Finding
from .textio import write_atomic

FORMAT = 1
DIR_NAME = ".autodetach_cache"
_FINGERPRINT: Optional[str] = None


def tool_fingerprint() -> str:
    """Version of autodetach, libcst and Python, plus a hash of the package's
    own source files (computed once per process)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        from . import __version__

        try:
            import libcst

            cst_version = getattr(libcst, "__version__", "") or _dist_version("libcst")
        except ImportError:  # pragma: no cover
            cst_version = ""
        h = hashlib.sha256()
        h.update(f"{FORMAT}|{__version__}|{cst_version}|{sys.version}".encode())
        pkg = os.path.dirname(os.path.abspath(__file__))
        for d, dirs, files in sorted(os.walk(pkg)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    p = os.path.join(d, name)
                    h.update(os.path.relpath(p, pkg).encode())
                    try:
                        with open(p, "rb") as fh:
                            h.update(fh.read())
                    except OSError:
                        pass
        _FINGERPRINT = h.hexdigest()
    return _FINGERPRINT


def _dist_version(name: str) -> str:
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:  # pragma: no cover
        return ""


def _writable_dir(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK)


def default_dir(root: str) -> Optional[str]:
    """Where the cache lives for the project rooted at `root` (None: nowhere)."""
    root = os.path.abspath(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if not xdg:
        local = os.path.join(root, DIR_NAME)
        if os.path.isdir(local) or os.access(root, os.W_OK):
            return local
        xdg = os.path.join(os.path.expanduser("~"), ".cache")
    tag = hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(xdg, "autodetach", tag)


def dir_for(cfg) -> Optional[str]:
    """The cache directory for a loaded configuration (see the module docstring)."""
    return default_dir(cfg.root if cfg.source else os.getcwd())


class Cache:
    """Per-process view of one cache directory for one set of settings."""

    def __init__(self, directory: str, codes, fix: bool, unsafe: bool, diff: bool, write: bool) -> None:
        self.directory = directory
        self.mode = f"fix={int(fix)} unsafe={int(unsafe)} diff={int(diff)} write={int(write)}"
        self._base = f"{tool_fingerprint()}|{','.join(sorted(codes))}"
        self._ready = False
        self.hits = 0  # read by tests: a second run must be served from here
        self.misses = 0

    def _prepare(self) -> bool:
        if not self._ready:
            if not _writable_dir(self.directory):
                return False
            tag = os.path.join(self.directory, "CACHEDIR.TAG")
            if not os.path.exists(tag):
                try:
                    write_atomic(tag, b"Signature: 8a477f597d28d172789f06886806bc55\n"
                                 b"# autodetach's result cache; safe to delete.\n", sync=False)
                    write_atomic(os.path.join(self.directory, ".gitignore"), b"*\n", sync=False)
                except OSError:
                    pass
            self._ready = True
        return True

    def key(self, data: bytes, shown_path: str, ignore: frozenset) -> str:
        h = hashlib.sha256()
        h.update(self._base.encode())
        h.update(b"\0")
        h.update(",".join(sorted(ignore)).encode())
        h.update(b"\0")
        h.update(shown_path.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
        h.update(data)
        return h.hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key[2:] + ".json")

    def _load(self, key: str) -> Optional[dict]:
        try:
            with open(self._path(key), "rb") as fh:
                entry = json.loads(fh.read())
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("format") != FORMAT:
            return None
        return entry

    def get(self, key: str) -> Optional[FileResult]:
        from .analysis.project import deps_current, take_deps

        take_deps()  # start recording the imported files this file's analysis reads
        entry = self._load(key)
        res = None
        if entry is not None and not deps_current(entry.get("deps")):
            entry = None  # a project file it imports from has changed
        if entry is not None:
            try:
                if "clean" in entry:
                    res = _from_dict(entry["clean"])
                elif isinstance(entry.get("modes"), dict) and self.mode in entry["modes"]:
                    res = _from_dict(entry["modes"][self.mode])
            except (KeyError, TypeError, ValueError):
                res = None  # a damaged entry is a miss
        if res is None:
            self.misses += 1
        else:
            self.hits += 1
        return res

    def put(self, key: str, res: FileResult) -> None:
        """Store `res` if it may be served again. The caller never passes a
        result whose fixes were written back."""
        if res.errors or res.crashed or res.write_failed:
            return
        if not self._prepare():
            return
        from .analysis.project import take_deps

        deps = take_deps()
        value = _to_dict(res)
        if not res.findings and not res.diff and not res.fixed:
            entry = {"format": FORMAT, "clean": value}
        else:
            entry = self._load(key) or {"format": FORMAT}
            if (entry.get("deps") or {}) != deps:
                entry = {"format": FORMAT}  # other modes were computed against other imports
            entry.pop("clean", None)
            modes = entry.get("modes") if isinstance(entry.get("modes"), dict) else {}
            modes[self.mode] = value
            entry["modes"] = modes
        if deps or "deps" in entry:
            entry["deps"] = deps
        path = self._path(key)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_atomic(path, json.dumps(entry, separators=(",", ":")).encode("ascii"), sync=False)
        except (OSError, ValueError):
            pass  # a cache that cannot be written is no cache, not an error


def _to_dict(res: FileResult) -> dict:
    return {
        "findings": [f.to_dict() for f in res.findings],
        "fixed": res.fixed,
        "skipped": res.skipped,
        "diff": res.diff,
    }


def _from_dict(d: dict) -> FileResult:
    findings = []
    for fd in d["findings"]:
        fd = dict(fd)
        fd["related"] = [tuple(r) for r in fd.get("related", [])]
        findings.append(Finding(**fd))
    diff = d.get("diff", "")
    if not isinstance(diff, str):
        raise ValueError("diff")
    return FileResult(path="", findings=findings, fixed=int(d.get("fixed", 0)),
                      skipped=bool(d.get("skipped", False)), diff=diff)
