"""Reading and writing user files without harming them.

Encoding (coding cookie or BOM) is detected the way Python does; newlines
are kept as they are because libcst round-trips them; writes are atomic and
keep the mode bits."""
from __future__ import annotations

import contextlib
import io
import os
import signal
import stat
import tempfile
import threading
import tokenize
from dataclasses import dataclass

BOM = b"\xef\xbb\xbf"


@dataclass
class Decoded:
    text: str
    encoding: str
    bom: bool


def decode(data: bytes) -> Decoded:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    bom = data.startswith(BOM)
    if bom:
        data = data[len(BOM):]
        encoding = "utf-8"
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    # newline="" semantics: keep \r\n and \r exactly.
    return Decoded(data.decode(encoding), encoding, bom)


def encode(text: str, dec: Decoded) -> bytes:
    data = text.encode(dec.encoding)
    return (BOM + data) if dec.bom else data


def is_read_only(path: str) -> bool:
    """True for a file we must not write: no write permission for us, or no
    write bit at all (root may write anything; we still respect a chmod a-w)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return True
    return not os.access(path, os.W_OK)


def outside_roots(path: str, roots) -> "str | None":
    """The real path of `path` when it lies outside every root (real paths
    of the files and folders named on the command line); else None."""
    if not roots:
        return None
    real = os.path.realpath(path)
    for root in roots:
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return None
    return real


def write_atomic(path: str, data: bytes) -> None:
    """Replace `path` with `data` in one rename, keeping its mode bits.

    The temporary file lives in the same directory (so the rename is atomic)
    and is removed on any failure. A symlink is followed: its target is
    replaced, the link stays a link."""
    path = os.path.realpath(path)
    directory = os.path.dirname(path)
    mode = stat.S_IMODE(os.stat(path).st_mode)
    # SIGTERM (a pool worker's parent-death signal, Pool.terminate) waits
    # until the temporary file is renamed or removed; then its default
    # action ends the process. A Python handler would be racy: a signal that
    # lands just before a blocking wait is not seen until the wait ends.
    with _terminate_deferred():
        fd, tmp = tempfile.mkstemp(prefix=".autodetach-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise


_DEFERRED = {signal.SIGTERM, signal.SIGHUP} if hasattr(signal, "pthread_sigmask") else set()


@contextlib.contextmanager
def _terminate_deferred():
    if not _DEFERRED or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def write_fixed(path: str, data: bytes, roots=()) -> "str | None":
    """Write a fixed file back. Returns why it was not written, or None.

    One place for the checks and messages of every write of a fix: a link
    out of the paths given, a read-only file, a failed write."""
    target = outside_roots(path, roots)
    if target is not None:
        return f"not fixed: a symbolic link to a file outside the paths given ({target})"
    if is_read_only(path):
        return "not fixed: the file is read-only"
    try:
        write_atomic(path, data)
    except OSError as exc:
        return f"not fixed: cannot write: {exc.strerror or exc}"
    return None
