"""Issue 13: writes stay inside the named paths, a missing path does not stop
the others, unparseable files are reported where they break, workers die
with the CLI; and bad input of every cheap kind."""
import os

from .test_cli import BAD, FIXED, assert_one_line_error, read, run_cli, write


def _fix(tmp_path, *paths):
    return run_cli(["--fix", *paths], cwd=tmp_path)


# --- symbolic links ---------------------------------------------------------------

def test_link_out_of_the_tree_is_reported_not_written(tmp_path):
    outside = write(tmp_path / "outside" / "target.py", BAD)
    write(tmp_path / "tree" / "own.py", BAD)
    os.symlink(outside, tmp_path / "tree" / "link.py")
    res = _fix(tmp_path, "tree")
    assert read(outside) == BAD  # the target outside tree/ is untouched
    assert os.path.islink(tmp_path / "tree" / "link.py")
    assert read(tmp_path / "tree" / "own.py") == FIXED
    err = [ln for ln in res.err.splitlines() if ln.strip()]
    assert len(err) == 1 and "tree/link.py: not fixed: a symbolic link to a file outside" in err[0]
    assert "tree/link.py:2:5: AD201" in res.out  # still reported
    assert res.code == 2


def test_link_inside_the_tree_is_fixed_once(tmp_path):
    target = write(tmp_path / "tree" / "real.py", BAD)
    os.symlink("real.py", tmp_path / "tree" / "alias.py")
    res = _fix(tmp_path, "tree")
    assert res.code == 0, res.err
    assert read(target) == FIXED and os.path.islink(tmp_path / "tree" / "alias.py")
    assert "Fixed 1 finding" in res.out


def test_link_named_on_the_command_line_is_fixed_through(tmp_path):
    outside = write(tmp_path / "outside" / "target.py", BAD)
    os.symlink(outside, tmp_path / "link.py")
    assert _fix(tmp_path, "link.py").code == 0
    assert read(outside) == FIXED and os.path.islink(tmp_path / "link.py")


def test_symlink_loops_are_never_followed(tmp_path):
    write(tmp_path / "tree" / "a.py", BAD)
    os.symlink("loop2.py", tmp_path / "tree" / "loop1.py")
    os.symlink("loop1.py", tmp_path / "tree" / "loop2.py")
    os.symlink(".", tmp_path / "tree" / "sub")  # a directory loop
    res = _fix(tmp_path, "tree")
    assert res.code == 0, res.err
    assert read(tmp_path / "tree" / "a.py") == FIXED


# --- missing paths ----------------------------------------------------------------

def test_missing_path_does_not_stop_the_others(tmp_path):
    write(tmp_path / "real_dir" / "a.py", BAD)
    res = _fix(tmp_path, "missing_dir", "real_dir")
    assert_one_line_error(res, "missing_dir: no such file or directory")
    assert read(tmp_path / "real_dir" / "a.py") == FIXED


def test_only_missing_paths_exit_2_with_a_line_each(tmp_path):
    res = run_cli(["nope1", "nope2"], cwd=tmp_path)
    assert res.code == 2
    lines = res.err.splitlines()
    assert lines == ["autodetach: error: nope1: no such file or directory",
                     "autodetach: error: nope2: no such file or directory"]


# --- where an unparseable file breaks ------------------------------------------------

def _ad000(tmp_path, name, data):
    (tmp_path / name).write_bytes(data)
    res = run_cli(["--output-format", "concise", name], cwd=tmp_path)
    assert res.code == 1, res.err
    (line,) = [ln for ln in res.lines if "AD000" in ln]
    return line


def test_nul_byte_reported_where_it_is(tmp_path):
    data = b"import torch\nfrom torch.autograd import Variable\nx = 1\x00\nh = Variable(h.data)\n"
    assert _ad000(tmp_path, "nul.py", data).startswith("nul.py:3:6: AD000 cannot parse: a NUL byte")


def test_tab_space_mix_reported_on_its_line(tmp_path):
    data = (b"import torch\nfrom torch.autograd import Variable\n\ndef f(h):\n    if h:\n"
            b"\tg = Variable(h.data)\n        return g\n")
    line = _ad000(tmp_path, "tabs.py", data)
    assert line.startswith("tabs.py:6:1: AD000 cannot parse: inconsistent use of tabs and spaces"), line


def test_python2_print_reported_on_its_line(tmp_path):
    data = b"import torch\nfrom torch.autograd import Variable\nprint 'loss', Variable(h.data)\nz = 1\n"
    line = _ad000(tmp_path, "py2.py", data)
    assert line.startswith("py2.py:3:1: AD000 cannot parse: Missing parentheses in call to 'print'"), line


def test_unclosed_bracket_reported_at_the_bracket(tmp_path):
    data = b"from torch.autograd import Variable\nx = Variable(\ny = 2\n"
    assert _ad000(tmp_path, "open.py", data).startswith("open.py:2:13: AD000 cannot parse: '(' was never closed")


# --- workers die with the CLI ----------------------------------------------------

def _children(pid):
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(name))
    return out


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_workers_die_when_the_cli_is_killed(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    import pytest

    from .test_cli import ROOT

    if not os.path.isdir("/proc"):
        pytest.skip("needs /proc")
    tree = tmp_path / "tree"
    body = BAD + "".join(f"\ndef f{i}(h):\n    return Variable(h.data) + {i}\n" for i in range(40))
    paths = [write(tree / f"m{i:03}.py", body) for i in range(300)]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "autodetach", "--fix", "--no-cache", "-j", "3",
                             "--select", "AD201", str(tree)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        workers = []
        while time.time() < deadline:  # wait until the pool is writing
            workers = _children(proc.pid)
            if len(workers) >= 3 and any(read(p) != body for p in paths):
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be killed: make it longer"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.time() + 5
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers), "a worker outlived the killed CLI"
    finally:
        if proc.poll() is None:
            proc.kill()
    states = [read(p) for p in paths]
    assert all(s == body or ("Variable(" not in s.split("\n", 2)[2]) for s in states)
    assert any(s == body for s in states), "every file was fixed: the kill came too late"
    time.sleep(0.5)
    assert [read(p) for p in paths] == states  # nothing is rewritten afterwards
    assert sorted(os.listdir(tree)) == sorted(os.path.basename(p) for p in paths)  # no temp files


# --- bad input ----------------------------------------------------------------------

def test_empty_file_is_clean_and_untouched(tmp_path):
    p = tmp_path / "empty.py"
    p.write_bytes(b"")
    res = _fix(tmp_path, "empty.py")
    assert res.code == 0 and p.read_bytes() == b""


def test_non_utf8_without_cookie_is_AD000_and_untouched(tmp_path):
    data = ("from torch.autograd import Variable\n# Größe\n" + "h = Variable(h.data)\n").encode("latin-1")
    p = tmp_path / "latin.py"
    p.write_bytes(data)
    res = run_cli(["--fix", "--output-format", "concise", "latin.py"], cwd=tmp_path)
    assert res.code == 1
    assert any(ln.startswith("latin.py:2:") and "AD000 cannot decode as utf-8" in ln for ln in res.lines), res.out
    assert p.read_bytes() == data


def test_non_utf8_with_cookie_is_fixed_in_its_encoding(tmp_path):
    text = "# coding: cp1252\n# prix: 5€\n" + BAD
    p = tmp_path / "cp.py"
    p.write_bytes(text.encode("cp1252"))
    assert _fix(tmp_path, "cp.py").code == 0
    assert p.read_bytes() == ("# coding: cp1252\n# prix: 5€\n" + FIXED).encode("cp1252")


def test_bom_and_crlf_together(tmp_path):
    p = tmp_path / "w.py"
    p.write_bytes(b"\xef\xbb\xbf" + BAD.replace("\n", "\r\n").encode())
    assert _fix(tmp_path, "w.py").code == 0
    assert p.read_bytes() == b"\xef\xbb\xbf" + FIXED.replace("\n", "\r\n").encode()


def test_paths_with_spaces_and_non_ascii(tmp_path):
    p = write(tmp_path / "dir with space" / "modèle ünï.py", BAD)
    res = run_cli(["--fix", "dir with space"], cwd=tmp_path)
    assert res.code == 0, res.err
    assert read(p) == FIXED
    res = run_cli(["--output-format", "concise", "dir with space"], cwd=tmp_path)
    assert res.code == 0


def test_unreadable_file_is_one_error_line_others_fixed(tmp_path):
    p = write(tmp_path / "secret.py", BAD)
    other = write(tmp_path / "b.py", BAD)
    os.chmod(p, 0)
    try:
        if os.access(p, os.R_OK):
            import pytest

            pytest.skip("running as root: every file is readable")
        res = _fix(tmp_path, ".")
    finally:
        os.chmod(p, 0o644)
    assert res.code == 2
    errors = [ln for ln in res.err.splitlines() if ln.strip()]
    assert errors == ["autodetach: secret.py: cannot read: Permission denied"]
    assert read(other) == FIXED and read(p) == BAD


def test_read_only_file_reported_not_written(tmp_path):
    p = write(tmp_path / "ro.py", BAD)
    os.chmod(p, 0o444)
    try:
        res = _fix(tmp_path, "ro.py")
        assert read(p) == BAD
    finally:
        os.chmod(p, 0o644)
    assert res.code == 2 and "ro.py: not fixed: the file is read-only" in res.err
    assert "ro.py:2:5: AD201" in res.out
