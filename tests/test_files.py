"""Never harm a file: byte-identical when clean, encodings, BOM, newlines,
tabs, read-only files, mode bits, atomic writes. All through `--fix`."""
import os
import stat

import libcst as cst

from .test_cli import BAD, FIXED, read, run_cli, write


def _fix(tmp_path, *paths):
    return run_cli(["--fix", *paths], cwd=tmp_path)


def test_no_findings_means_byte_identical_and_untouched(tmp_path):
    data = b"import torch\r\n\tx = 1  # caf\xc3\xa9\n\n\n"
    p = tmp_path / "clean.py"
    p.write_bytes(b"\xef\xbb\xbf" + data)
    os.utime(p, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before = p.stat()
    res = _fix(tmp_path, ".")
    assert res.code == 0
    assert p.read_bytes() == b"\xef\xbb\xbf" + data
    after = p.stat()
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)


def test_suppressed_file_is_untouched(tmp_path):
    p = write(tmp_path / "s.py", BAD.replace("h.data)", "h.data)  # noqa: AD201"))
    before = os.stat(p)
    assert _fix(tmp_path, "s.py").code == 0
    assert os.stat(p).st_mtime_ns == before.st_mtime_ns


def test_latin1_with_coding_cookie(tmp_path):
    text = "# -*- coding: latin-1 -*-\n# Größe: ½\n" + BAD + "s = 'café'\n"
    p = tmp_path / "l.py"
    p.write_bytes(text.encode("latin-1"))
    assert _fix(tmp_path, "l.py").code == 0
    data = p.read_bytes()
    assert data == text.replace("Variable(h.data)", "h.detach()").encode("latin-1")
    assert "café".encode("latin-1") in data and "Größe".encode("latin-1") in data


def test_utf8_bom_kept(tmp_path):
    p = tmp_path / "b.py"
    p.write_bytes(b"\xef\xbb\xbf" + BAD.encode())
    assert _fix(tmp_path, "b.py").code == 0
    assert p.read_bytes() == b"\xef\xbb\xbf" + FIXED.encode()


def test_crlf_kept(tmp_path):
    p = tmp_path / "c.py"
    p.write_bytes(BAD.replace("\n", "\r\n").encode())
    assert _fix(tmp_path, "c.py").code == 0
    assert p.read_bytes() == FIXED.replace("\n", "\r\n").encode()


def test_no_newline_at_eof_kept(tmp_path):
    p = tmp_path / "n.py"
    p.write_bytes(BAD.rstrip("\n").encode())
    assert _fix(tmp_path, "n.py").code == 0
    assert p.read_bytes() == FIXED.rstrip("\n").encode()


def test_tabs_and_mixed_indentation_kept(tmp_path):
    text = ("from torch.autograd import Variable\n"
            "def f(h):\n"
            "\tif h:\n"
            "\t\th = Variable(h.data)\t# trailing tab comment\n"
            "\treturn h\n"
            "class C:\n"
            "    def g(self, h):\n"
            "        return Variable(h.data)\n")
    p = write(tmp_path / "t.py", text)
    assert _fix(tmp_path, "t.py").code == 0
    assert read(p) == text.replace("Variable(h.data)", "h.detach()")
    cst.parse_module(read(p))


def test_read_only_file_not_modified_others_fixed(tmp_path):
    ro = write(tmp_path / "ro.py", BAD)
    rw = write(tmp_path / "rw.py", BAD)
    os.chmod(ro, 0o444)
    try:
        res = run_cli(["--fix", "--output-format", "concise", "."], cwd=tmp_path)
        assert read(ro) == BAD
        assert read(rw) == FIXED
        assert res.code == 2
        err = [ln for ln in res.err.splitlines() if ln]
        assert err == ["autodetach: ro.py: not fixed: the file is read-only"]
        # its finding is still reported, and not counted as fixed
        assert any(ln.startswith("ro.py:2:5: AD201 [*]") for ln in res.lines), res.out
        assert "Fixed 1 finding." in res.out
    finally:
        os.chmod(ro, 0o644)


def test_mode_bits_preserved(tmp_path):
    p = write(tmp_path / "exe.py", "#!/usr/bin/env python\n" + BAD)
    os.chmod(p, 0o755)
    assert _fix(tmp_path, "exe.py").code == 0
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o755
    assert read(p) == "#!/usr/bin/env python\n" + FIXED


def test_write_is_atomic_rename_in_same_directory(tmp_path):
    p = write(tmp_path / "pkg" / "a.py", BAD)
    ino = os.stat(p).st_ino
    assert _fix(tmp_path, ".").code == 0
    assert read(p) == FIXED
    assert os.stat(p).st_ino != ino  # replaced by a rename, not rewritten in place
    assert sorted(os.listdir(tmp_path / "pkg")) == ["a.py"]  # no temp file left behind
    assert sorted(os.listdir(tmp_path)) == ["pkg"]


def test_unwritable_directory_leaves_no_temp_file(tmp_path):
    d = tmp_path / "locked"
    p = write(d / "a.py", BAD)
    os.chmod(d, 0o555)
    try:
        res = run_cli(["--fix", "."], cwd=tmp_path)
        if os.access(d, os.W_OK):  # running as root: the directory is writable anyway
            assert res.code == 0 and read(p) == FIXED
        else:
            assert res.code == 2
            assert "locked/a.py: not fixed: cannot write" in res.err
            assert read(p) == BAD
        assert sorted(os.listdir(d)) == ["a.py"]
    finally:
        os.chmod(d, 0o755)


def test_symlinked_file_target_fixed_link_kept(tmp_path):
    target = write(tmp_path / "real.py", BAD)
    os.symlink("real.py", tmp_path / "link.py")
    assert _fix(tmp_path, "link.py").code == 0
    assert os.path.islink(tmp_path / "link.py")
    assert read(target) == FIXED


def test_unparseable_and_undecodable_files_left_untouched(tmp_path):
    py2 = "from torch.autograd import Variable\nh = Variable(h.data)\nprint 'x'\n"
    p2 = write(tmp_path / "py2.py", py2)
    bad_utf8 = b"from torch.autograd import Variable\nh = Variable(h.data)\ns = '\xff\xfe'\n"
    (tmp_path / "enc.py").write_bytes(bad_utf8)
    good = write(tmp_path / "good.py", BAD)
    res = run_cli(["--fix", "--output-format", "concise", "."], cwd=tmp_path)
    assert res.code == 1
    assert read(p2) == py2
    assert (tmp_path / "enc.py").read_bytes() == bad_utf8
    assert read(good) == FIXED
    lines = {ln.split(":")[0]: ln for ln in res.lines if ": AD" in ln}
    assert lines["py2.py"].startswith("py2.py:3:")
    assert " AD000 cannot parse" in lines["py2.py"]
    assert lines["enc.py"].startswith("enc.py:3:6: AD000 cannot decode as utf-8: byte 0xff")
    assert "good.py" not in lines
    assert res.err == ""


def test_idempotent_fix(tmp_path):
    p = write(tmp_path / "a.py", BAD + "g = Variable(Variable(h.data).data)\n")
    assert _fix(tmp_path, "a.py").code == 0
    once = read(p)
    assert "Variable" not in once.split("\n", 1)[1]
    res = _fix(tmp_path, "a.py")
    assert res.code == 0 and read(p) == once
    assert "All checks passed!" in res.out
