"""Checks the changed files in parallel, with a cache of what the bot
computed for each (findings on the changed lines, the fix it offers), so a
re-run on an unchanged pull request parses nothing. An entry is keyed by
the tool's fingerprint, the rules, the unsafe setting, the file's path,
bytes and changed lines; it is served only while the project files its
analysis imported are unchanged (as in autodetach/cache.py)."""
from __future__ import annotations

import base64
import hashlib
import json
import os
from typing import Optional

from ..findings import Finding
from .fixes import FileFix, check

FORMAT = 1
_STATE: dict = {}


def _key(path: str, data: bytes, lines, codes, unsafe: bool) -> str:
    from ..cache import tool_fingerprint

    h = hashlib.sha256()
    h.update(f"ci{FORMAT}|{tool_fingerprint()}|{','.join(sorted(codes))}|{int(unsafe)}|".encode())
    h.update(path.encode("utf-8", "surrogateescape") + b"\0")
    h.update((",".join(map(str, sorted(lines))) if lines is not None else "all").encode() + b"\0")
    h.update(data)
    return h.hexdigest()


def _to_json(ff: Optional[FileFix]) -> Optional[dict]:
    if ff is None:
        return None
    return {"findings": [f.to_dict() for f in ff.findings],
            "new": base64.b64encode(ff.new).decode("ascii") if ff.new is not None else None,
            "left": [[list(k), why] for k, why in ff.left.items()]}


def _from_json(d: Optional[dict], path: str, real: str, old: bytes, codes) -> Optional[FileFix]:
    if d is None:
        return None
    findings = []
    for fd in d["findings"]:
        fd = dict(fd, path=path)
        fd["related"] = [tuple(r) for r in fd.get("related", [])]
        findings.append(Finding(**fd))
    new = base64.b64decode(d["new"]) if d.get("new") is not None else None
    left = {tuple(k): why for k, why in d.get("left", [])}
    return FileFix(path=path, real=real, old=old, findings=findings, new=new, left=left, codes=tuple(codes))


def _load(directory: str, k: str) -> Optional[dict]:
    from ..analysis.project import deps_current

    try:
        with open(os.path.join(directory, k[:2], k[2:] + ".json"), "rb") as fh:
            entry = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or not deps_current(entry.get("deps")):
        return None
    return entry


def _store(directory: str, k: str, ff: Optional[FileFix], deps: dict) -> None:
    from ..textio import write_atomic

    path = os.path.join(directory, k[:2], k[2:] + ".json")
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, json.dumps({"format": FORMAT, "fix": _to_json(ff), "deps": deps}).encode("ascii"),
                     sync=False)
    except (OSError, ValueError):
        pass  # a cache that cannot be written is no cache


def _read(path: str, real: str) -> tuple:
    """(bytes, []), or (None, the error) for a file that cannot be read."""
    try:
        with open(real, "rb") as fh:
            return fh.read(), []
    except OSError as exc:
        return None, [{"path": path, "message": f"cannot read: {exc.strerror or exc}"}]


def cached(item):
    """(FileFix or None, errors) from the cache or a read error; None on a miss."""
    path, real, lines, codes = item
    unsafe, directory = _STATE["unsafe"], _STATE["cache"]
    data, errors = _read(path, real)
    if data is None:
        return None, errors
    if directory:
        entry = _load(directory, _key(path, data, lines, codes, unsafe))
        if entry is not None:
            try:
                return _from_json(entry["fix"], path, real, data, codes), []
            except (KeyError, TypeError, ValueError):
                pass  # a damaged entry is a miss
    return None


def one(item) -> tuple:
    """(FileFix or None, errors) for (shown path, real path, changed lines, codes)."""
    from ..analysis.project import take_deps

    path, real, lines, codes = item
    unsafe, directory = _STATE["unsafe"], _STATE["cache"]
    data, errors = _read(path, real)
    if data is None:
        return None, errors
    k = _key(path, data, lines, codes, unsafe) if directory else None
    take_deps()
    ff, errors = check(path, real, data, lines, codes, unsafe)
    if k is not None and not errors:
        _store(directory, k, ff, take_deps())
    return ff, errors


def _one_at(item) -> tuple:
    i, rest = item
    return i, one(rest)


def _init(unsafe: bool, directory: Optional[str]) -> None:
    _STATE.update(unsafe=unsafe, cache=directory)


def check_all(items: list, unsafe: bool, cache_dir: Optional[str], jobs: int) -> tuple:
    """([FileFix], errors) for the items, in order."""
    directory = None
    if cache_dir:
        from ..cache import Cache

        if Cache(cache_dir, (), False, False, False, False)._prepare():  # CACHEDIR.TAG, .gitignore
            directory = os.path.join(cache_dir, "ci")
    _init(unsafe, directory)
    # Cache hits are served here: a warm re-run starts no worker at all.
    outs = [cached(i) for i in items]
    todo = [n for n, o in enumerate(outs) if o is None]
    if jobs <= 1 or len(todo) < 2:
        for n in todo:
            outs[n] = one(items[n])
    elif todo:
        from ..executors import LocalPool

        pool = LocalPool(min(jobs, len(todo)), _init, (unsafe, directory))
        for n, out in pool.map_unordered(_one_at, [(n, items[n]) for n in todo]):
            outs[n] = out
    fixes, errors = [], []
    for ff, errs in outs:
        errors += errs
        if ff is not None:
            fixes.append(ff)
    return fixes, errors
