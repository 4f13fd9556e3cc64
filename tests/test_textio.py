"""textio.write_fixed: the one write path for fixes (--fix and --verify --fix)."""
import os
import shutil
import stat
import tempfile

import pytest

from autodetach.textio import _name_temp, _open_temp, write_atomic, write_fixed


def test_writes_and_keeps_the_mode(tmp_path):
    p = tmp_path / "a.py"
    p.write_bytes(b"old\n")
    os.chmod(p, 0o640)
    assert write_fixed(str(p), b"new\n") is None
    assert p.read_bytes() == b"new\n"
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o640


def test_read_only_file_is_left_alone(tmp_path):
    p = tmp_path / "a.py"
    p.write_bytes(b"old\n")
    os.chmod(p, 0o444)
    try:
        assert write_fixed(str(p), b"new\n") == "not fixed: the file is read-only"
        assert p.read_bytes() == b"old\n"
    finally:
        os.chmod(p, 0o644)


def test_link_out_of_the_roots_is_left_alone(tmp_path):
    outside = tmp_path / "outside.py"
    outside.write_bytes(b"old\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "link.py").symlink_to(outside)
    problem = write_fixed(str(tree / "link.py"), b"new\n", roots=(os.path.realpath(tree),))
    assert problem == f"not fixed: a symbolic link to a file outside the paths given ({os.path.realpath(outside)})"
    assert outside.read_bytes() == b"old\n"


def test_missing_directory_is_a_message_not_an_exception(tmp_path):
    problem = write_fixed(str(tmp_path / "gone" / "a.py"), b"new\n")
    assert problem is not None and problem.startswith("not fixed: cannot write: ")


def test_write_atomic_creates_a_new_file_private_and_leaves_no_temporary(tmp_path):
    # The cache's writes: new files, no fsync.
    path = tmp_path / "entry.json"
    write_atomic(str(path), b"{}", sync=False)
    assert path.read_bytes() == b"{}"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    write_atomic(str(path), b"[]", sync=False)
    assert path.read_bytes() == b"[]"
    assert os.listdir(tmp_path) == ["entry.json"]


def test_write_atomic_takes_chunks_and_a_report_gets_the_usual_mode(tmp_path):
    path = tmp_path / "report.md"
    write_atomic(str(path), (part.encode() for part in ["# a\n", "b\n"]), private=False)
    assert path.read_bytes() == b"# a\nb\n"
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~mask


def test_unnamed_file_that_cannot_be_linked_is_copied_whole(tmp_path):
    # linkat fails across file systems (EXDEV): the fallback copies what the
    # unnamed file holds (it may have come from a stream, so it is read back).
    other = "/dev/shm"
    if not os.path.isdir(other) or os.stat(other).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("needs a second file system")
    fd, name = _open_temp(str(tmp_path))
    if name is not None:
        os.close(fd)
        pytest.skip("no O_TMPFILE here: the temporary file has a name from the start")
    target = tempfile.mkdtemp(dir=other)
    try:
        data = bytes(range(256)) * 5000  # more than one read block
        os.write(fd, data)
        copy = _name_temp(fd, target, 0o640)
        with open(copy, "rb") as fh:
            assert fh.read() == data
        assert stat.S_IMODE(os.stat(copy).st_mode) == 0o640
    finally:
        os.close(fd)
        shutil.rmtree(target)


def test_old_mac_newlines_are_fixed_and_kept(tmp_path):
    """A file whose lines end in a lone CR (classic Mac OS): libcst does not
    round-trip it, so its findings were marked fixable ([*]) and never fixed,
    without a word. Now it is read with LF and written back with CR."""
    from autodetach.engine import Options, process_bytes
    from autodetach.registry import by_code

    body = "import torch\nfrom torch.autograd import Variable\n\n\ndef f(h):\n    return Variable(h.data)\n"
    data = body.replace("\n", "\r").encode()
    res = process_bytes(data, "m.py", [by_code()["AD201"]], Options(fix=True))
    assert res.new_source == body.replace("Variable(h.data)", "h.detach()").replace("\n", "\r").encode()
    assert [f.line for f in process_bytes(data, "m.py", [by_code()["AD201"]], Options()).findings] == [6]
    clean = "import torch\r\rdef f(h):\r    return h.detach()\r".encode()
    assert process_bytes(clean, "m.py", [by_code()["AD201"]], Options(fix=True)).new_source is None
