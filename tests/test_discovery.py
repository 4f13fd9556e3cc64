"""Which files a run checks, through the real CLI."""
import os

from .test_cli import BAD, assert_one_line_error, run_cli, write


def _checked(tmp_path, *args, cwd=None):
    res = run_cli(["--output-format", "concise", "-q", *args], cwd=cwd or tmp_path)
    assert "Traceback" not in res.err
    return sorted(ln.split(":")[0] for ln in res.lines if ": AD201" in ln)


def test_recursive_py_only_and_junk_skipped(tmp_path):
    for rel in ["a.py", "pkg/b.py", "pkg/sub/c.py", "notes.txt", "script.pyw", "pkg/data.pyi.bak",
                ".git/hooks/h.py", "build/lib/x.py", "dist/y.py", "pkg/__pycache__/z.py",
                ".venv/lib/v.py", "venv/lib/v.py", ".tox/t.py", "node_modules/n.py", "x.egg-info/e.py"]:
        write(tmp_path / rel, BAD)
    # a virtualenv under any name is recognised by its pyvenv.cfg
    write(tmp_path / "my-env" / "pyvenv.cfg", "home = /usr/bin\n")
    write(tmp_path / "my-env" / "lib" / "site.py", BAD)
    assert _checked(tmp_path, ".") == ["a.py", "pkg/b.py", "pkg/sub/c.py"]


def test_gitignore_root_nested_and_negation(tmp_path):
    os.mkdir(tmp_path / ".git")
    write(tmp_path / ".gitignore", "generated/\n*_pb2.py\n")
    write(tmp_path / "generated" / "g.py", BAD)
    write(tmp_path / "api_pb2.py", BAD)
    write(tmp_path / "pkg" / ".gitignore", "scratch*.py\n!scratch_keep.py\n")
    write(tmp_path / "pkg" / "scratch1.py", BAD)
    write(tmp_path / "pkg" / "scratch_keep.py", BAD)
    write(tmp_path / "pkg" / "model.py", BAD)
    write(tmp_path / "other" / "scratch2.py", BAD)  # the nested rule applies below pkg/ only
    assert _checked(tmp_path, ".") == ["other/scratch2.py", "pkg/model.py", "pkg/scratch_keep.py"]


def test_gitignore_above_the_named_directory_applies_inside_a_repository(tmp_path):
    os.mkdir(tmp_path / ".git")
    write(tmp_path / ".gitignore", "pkg/out/\n")
    write(tmp_path / "pkg" / "out" / "o.py", BAD)
    write(tmp_path / "pkg" / "m.py", BAD)
    assert _checked(tmp_path, "pkg") == ["pkg/m.py"]
    assert _checked(tmp_path, ".", cwd=tmp_path / "pkg") == ["m.py"]


def test_explicit_files_are_always_checked(tmp_path):
    os.mkdir(tmp_path / ".git")
    write(tmp_path / ".gitignore", "ignored.py\n")
    write(tmp_path / "ignored.py", BAD)
    write(tmp_path / "build" / "b.py", BAD)
    write(tmp_path / "tool", BAD)  # no .py suffix
    assert _checked(tmp_path, ".") == []
    assert _checked(tmp_path, "ignored.py", "build/b.py", "tool") == ["build/b.py", "ignored.py", "tool"]


def test_named_directory_that_is_usually_skipped(tmp_path):
    write(tmp_path / "build" / "b.py", BAD)
    assert _checked(tmp_path, "build") == ["build/b.py"]


def test_a_file_given_twice_is_checked_once(tmp_path):
    write(tmp_path / "a.py", BAD)
    assert _checked(tmp_path, "a.py", "./a.py", ".") == ["a.py"]


def test_symlinks(tmp_path):
    write(tmp_path / "real" / "r.py", BAD)
    os.symlink(tmp_path / "real", tmp_path / "loop")  # a directory link is not followed
    os.symlink(tmp_path / "missing.py", tmp_path / "dangling.py")  # skipped inside a directory
    res = run_cli(["--output-format", "concise", "."], cwd=tmp_path)
    assert res.code == 1
    assert sorted(ln.split(":")[0] for ln in res.lines if ": AD201" in ln) == ["real/r.py"]
    assert res.err == ""


def test_a_file_reached_twice_through_links_is_checked_once(tmp_path):
    write(tmp_path / "real" / "r.py", BAD)
    os.symlink(tmp_path / "real" / "r.py", tmp_path / "real" / "alias.py")  # a link beside its target
    os.symlink(tmp_path / "real", tmp_path / "via")  # the folder named again through a link
    assert _checked(tmp_path, "real", "via") == ["real/alias.py"]


def test_directory_named_like_a_python_file(tmp_path):
    write(tmp_path / "odd.py" / "inner.py", BAD)
    assert _checked(tmp_path, ".") == ["odd.py/inner.py"]
    assert _checked(tmp_path, "odd.py") == ["odd.py/inner.py"]


def test_nonexistent_path_among_good_ones(tmp_path):
    write(tmp_path / "a.py", BAD)
    assert_one_line_error(run_cli(["a.py", "nope/"], cwd=tmp_path), "nope/: no such file or directory")


def test_unreadable_file_is_an_error_line(tmp_path):
    p = write(tmp_path / "secret.py", BAD)
    write(tmp_path / "b.py", BAD)
    os.chmod(p, 0)
    try:
        if os.access(p, os.R_OK):  # root reads anything: make it unreadable another way
            os.unlink(p)
            os.mkfifo(p)  # a FIFO named *.py is not a regular file: skipped
            assert _checked(tmp_path, ".") == ["b.py"]
            return
        res = run_cli(["."], cwd=tmp_path)
        assert res.code == 2
        assert "autodetach: secret.py: cannot read" in res.err
        assert "b.py:2:5: AD201" in res.out
    finally:
        if os.path.exists(p):
            os.chmod(p, 0o644)
