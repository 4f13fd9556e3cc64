"""The migration state beside the report: DIR/state.jsonl, one JSON line
per file result, appended and flushed as results arrive. The last line for
a path wins. A record carries the file's content hash before ("in") and
after ("out") the migration; a file whose hash equals its recorded "out"
is done, so an interrupted run resumes without fixing anything twice, and
a file edited since (any other hash) is taken as it is now."""
from __future__ import annotations

import hashlib
import json
import os
import time

NAME = "state.jsonl"


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class State:
    def __init__(self, directory: str, settings: dict) -> None:
        self.path = os.path.join(directory, NAME)
        self.settings = settings
        self.moved_aside = None  # where an old state with other settings went
        self.done = {}  # path -> (out hash, offset of its last record)
        if os.path.exists(self.path) and os.path.getsize(self.path) > 0:
            self._load()
        self._fh = open(self.path, "ab")
        if self._fh.tell() == 0:
            self._write({"settings": settings})
        elif not self._ends_with_newline():
            self._fh.write(b"\n")  # a line cut by a kill: never glue the next record to it
            self._fh.flush()

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as fh:
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) == b"\n"

    def _load(self) -> None:
        with open(self.path, "rb") as fh:
            first = fh.readline()
            try:
                header = json.loads(first)
            except ValueError:
                header = None
            if not isinstance(header, dict) or header.get("settings") != self.settings:
                fh.close()
                self.moved_aside = f"{self.path}.{time.strftime('%Y%m%d-%H%M%S')}"
                os.replace(self.path, self.moved_aside)
                return
            offset = fh.tell()
            for line in fh:
                rec = _parse(line)
                if rec is not None:
                    self.done[rec["path"]] = (rec.get("out"), offset)
                offset += len(line)

    def is_done(self, path: str, digest: str) -> bool:
        entry = self.done.get(path)
        return entry is not None and entry[0] == digest

    def append(self, rec: dict) -> None:
        offset = self._fh.tell()
        self._write(rec)
        self.done[rec["path"]] = (rec.get("out"), offset)

    def _write(self, rec: dict) -> None:
        # One write per line: a kill leaves whole lines, or a cut last line that _load skips.
        self._fh.write(json.dumps(rec, separators=(",", ":")).encode("utf-8") + b"\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()

    def records(self, paths=None):
        """The last record of each path (of `paths` when given), in path order.
        Read back from disk one at a time: memory holds offsets, not records."""
        with open(self.path, "rb") as fh:
            for path in sorted(self.done if paths is None else (p for p in paths if p in self.done)):
                fh.seek(self.done[path][1])
                rec = _parse(fh.readline())
                if rec is not None:
                    yield rec


def _parse(line: bytes):
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) and "path" in rec else None
