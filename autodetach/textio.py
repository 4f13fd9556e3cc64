"""Reading and writing user files without harming them.

Encoding (coding cookie or BOM) is detected the way Python does; newlines
are kept as they are because libcst round-trips them; writes are atomic and
keep the mode bits."""
from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import secrets
import signal
import stat
import tempfile
import threading
import tokenize
from dataclasses import dataclass
from typing import Iterable, Optional

BOM = b"\xef\xbb\xbf"


@dataclass
class Decoded:
    text: str
    encoding: str
    bom: bool
    cr: bool = False  # lines end in a lone CR (classic Mac OS): read as LF, written back as CR


def decode(data: bytes) -> Decoded:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    bom = data.startswith(BOM)
    if bom:
        data = data[len(BOM):]
        encoding = "utf-8"
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    # newline="" semantics: keep \r\n and \r exactly; but libcst does not
    # round-trip a file whose only line ends are lone CRs, so those read as LF.
    text = data.decode(encoding)
    if "\r" in text and "\n" not in text:
        return Decoded(text.replace("\r", "\n"), encoding, bom, cr=True)
    return Decoded(text, encoding, bom)


def encode(text: str, dec: Decoded) -> bytes:
    if dec.cr:
        text = text.replace("\n", "\r")
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


def link_out(path: str, roots, where: str = "the paths given") -> "str | None":
    """Why no fix may be written through `path`: it is a symbolic link to a
    file outside every root (`where` names them). None when it is not."""
    target = outside_roots(path, roots)
    if target is None:
        return None
    return f"not fixed: a symbolic link to a file outside {where} ({target})"


class ChangedSinceRead(OSError):
    """The file no longer holds what was read at the start: not written."""

    def __init__(self) -> None:
        super().__init__("the file changed since it was read")


def content_hash(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def write_atomic(path: str, data: "bytes | Iterable[bytes]", expect: Optional[bytes] = None,
                 sync: bool = True, private: bool = True) -> None:
    """Replace `path` with `data` in one rename, keeping its mode bits (a
    new file gets 0600; with `private=False`, what open() would give it:
    0666 less the umask, for a report people read). `data` is bytes, or chunks of bytes written as they
    come (a report streamed from disk). `sync=False` skips the fsync: for
    files that can be rebuilt (the cache), where speed matters more than
    surviving a crash. This is the package's one writer of whole files:
    every temporary name is unique, so concurrent writers never collide.

    With `expect` (content_hash of what was read at the start) this is a
    compare-and-swap: the file is replaced only while it still has that
    hash, else ChangedSinceRead and nothing is written. Runs of autodetach
    take a lock on the directory around the compare and the rename, so two
    runs never interleave there; another writer (an editor) can still slip
    into the microseconds between them.

    The new content is written to an unnamed file (O_TMPFILE) that gets a
    name only just before the rename, so even a SIGKILL leaves no temporary
    file behind, except in the instant between those two calls. A symlink
    is followed: its target is replaced, the link stays a link."""
    path = os.path.realpath(path)
    directory = os.path.dirname(path)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None if private else _default_mode()  # None: the temporary file's 0600
    # SIGTERM (a pool worker's parent-death signal, Pool.terminate) waits
    # until the temporary file is renamed or removed; then its default
    # action ends the process. A Python handler would be racy: a signal that
    # lands just before a blocking wait is not seen until the wait ends.
    with _terminate_deferred():
        fd, tmp = _open_temp(directory)
        try:
            with os.fdopen(fd, "wb", closefd=False) as fh:
                for chunk in ((data,) if isinstance(data, (bytes, bytearray)) else data):
                    fh.write(chunk)
                fh.flush()
                if sync:
                    os.fsync(fh.fileno())
            if mode is not None:
                os.fchmod(fd, mode)
            with _directory_lock(directory):
                if expect is not None and _current_hash(path) != expect:
                    raise ChangedSinceRead()
                with _named_window():
                    if tmp is None:
                        tmp = _name_temp(fd, directory, mode)
                    _test_pause("AUTODETACH_TEST_IN_RENAME")
                    os.replace(tmp, path)
                    tmp = None
        finally:
            os.close(fd)
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass


def _default_mode() -> int:
    """0666 less the umask, read without changing it (os.umask would, for
    every thread, for a moment)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _open_temp(directory: str):
    """(fd, None) for an unnamed file in `directory`, or (fd, name) where
    the system has no O_TMPFILE."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is not None and os.path.isdir("/proc/self/fd"):
        try:
            return os.open(directory, flag | os.O_RDWR, 0o600), None  # read back by _name_temp
        except OSError:
            pass  # a file system without it
    return tempfile.mkstemp(prefix=".autodetach-", suffix=".tmp", dir=directory)


def _name_temp(fd: int, directory: str, mode: Optional[int]) -> str:
    """A name for the unnamed file: linkat(AT_EMPTY_PATH) (needs
    CAP_DAC_READ_SEARCH) or the /proc link; where neither works, a named
    copy of what it holds, written the ordinary way."""
    for _ in range(100):
        name = os.path.join(directory, f".autodetach-{secrets.token_hex(6)}.tmp")
        try:
            _link_fd(fd, name)
            return name
        except FileExistsError:
            continue
        except OSError:
            break
    tfd, name = tempfile.mkstemp(prefix=".autodetach-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(tfd, "wb") as fh:
            os.lseek(fd, 0, os.SEEK_SET)
            for block in iter(lambda: os.read(fd, 1 << 20), b""):
                fh.write(block)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(name, mode)
    except BaseException:
        os.unlink(name)
        raise
    return name


_LIBC = None


def _link_fd(fd: int, name: str) -> None:
    import ctypes

    global _LIBC
    try:
        if _LIBC is None:
            _LIBC = ctypes.CDLL(None, use_errno=True)
        libc = _LIBC
        at_fdcwd, at_empty_path = -100, 0x1000
        if libc.linkat(fd, b"", at_fdcwd, os.fsencode(name), at_empty_path) == 0:
            return
        err = ctypes.get_errno()
        if err == errno.EEXIST:
            raise FileExistsError(err, os.strerror(err), name)
    except (OSError, AttributeError) as exc:
        if isinstance(exc, FileExistsError):
            raise
    os.link(f"/proc/self/fd/{fd}", name, follow_symlinks=True)


def read_regular(path: str) -> Optional[bytes]:
    """The bytes of a regular file; None for anything else, or when it cannot
    be read. The analysis reads files it was not given (a package's other
    modules): an open() of a FIFO named `x.py` waits for a writer for ever,
    and a device never ends."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)


def _current_hash(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as fh:
            return content_hash(fh.read())
    except OSError:
        return None


@contextlib.contextmanager
def _directory_lock(directory: str):
    try:
        import fcntl

        dfd = os.open(directory, os.O_RDONLY)
    except (ImportError, OSError):
        yield  # no flock here: the compare still runs, unlocked
        return
    try:
        fcntl.flock(dfd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(dfd)


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


# Held by a thread other than the main one from naming its temporary file to
# the rename. A signal mask defers SIGTERM only for the thread that sets it;
# a process whose writes run on other threads ends through
# `writers_finish_on_terminate` instead, which waits for this lock.
_NAMED = threading.Lock()


def _named_window():
    if threading.current_thread() is threading.main_thread():
        return contextlib.nullcontext()  # _terminate_deferred covers it
    return _NAMED


def block_terminate() -> None:
    """A writer thread's initializer: SIGTERM/SIGHUP go to the main thread,
    whose handler (below) can wait for this thread's rename."""
    if _DEFERRED:
        signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)


@contextlib.contextmanager
def writers_finish_on_terminate():
    """In the main thread, while other threads write (started with
    `block_terminate`): SIGTERM/SIGHUP wait until no writer holds a named
    temporary file, then end the process as their default action would.
    A signal someone set to be ignored, or handled, is left alone."""
    if not _DEFERRED or threading.current_thread() is not threading.main_thread():
        yield
        return

    def finish(signum, frame):
        _NAMED.acquire()  # never released: the process ends here
        signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
        os.kill(os.getpid(), signum)

    previous = {}
    for signum in _DEFERRED:
        if signal.getsignal(signum) == signal.SIG_DFL:
            previous[signum] = signal.signal(signum, finish)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


CHANGED_SINCE_READ = "not fixed: the file changed since it was read (another run or an editor?)"


def _test_pause(variable: str = "AUTODETACH_TEST_BEFORE_WRITE") -> None:
    """Tests only: block on the FIFO named by the environment variable until
    the test has acted (changed the file, sent a signal), making a real race
    deterministic."""
    fifo = os.environ.get(variable)
    if fifo:
        with open(fifo, "rb") as fh:
            fh.read()


def write_fixed(path: str, data: bytes, roots=(), expect: Optional[bytes] = None) -> "str | None":
    """Write a fixed file back. Returns why it was not written, or None.

    One place for the checks and messages of every write of a fix: a link
    out of the paths given, a read-only file, a file changed since it was
    read (`expect`: its content hash then), a failed write."""
    problem = link_out(path, roots)
    if problem is not None:
        return problem
    if is_read_only(path):
        return "not fixed: the file is read-only"
    _test_pause()
    try:
        write_atomic(path, data, expect=expect)
    except ChangedSinceRead:
        return CHANGED_SINCE_READ
    except OSError as exc:
        return f"not fixed: cannot write: {exc.strerror or exc}"
    return None
