"""Issue 13, faults: a SIGKILL at any moment of a --fix batch leaves every
file whole and no temporary file; two runs at once, or an owner editing a
file during a run, never lose a write (compare-and-swap on the content read
at the start)."""
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

import autodetach

from .test_cli import BAD, ROOT, read, write
from .test_reliability import _children

ENV = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _cli(args, env=ENV, **kw):
    return subprocess.Popen([sys.executable, "-m", "autodetach", "--no-cache", "--no-progress", *map(str, args)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def _leftovers(tree):
    return [n for _, _, fs in os.walk(tree) for n in fs if not n.endswith(".py")]


@pytest.mark.slow
def test_sigkill_at_random_moments_leaves_every_file_old_or_new(tmp_path):
    body = BAD + "".join(f"\ndef f{i}(h):\n    return Variable(h.data) + {i}\n" for i in range(30))
    new = autodetach.fix_code(body, select=["AD201"])[0]
    assert new != body
    tree = tmp_path / "tree"
    paths = [write(tree / f"d{i % 7}" / f"m{i:03}.py", body) for i in range(300)]
    rng = random.Random(13)
    torn = set()
    for attempt in range(12):
        proc = _cli(["--fix", "-q", "--select", "AD201", "-j", "2", tree], start_new_session=True)
        time.sleep(rng.uniform(0.5, 4.0))
        if proc.poll() is None:
            if attempt % 2:
                os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its workers, mid-write or not
            else:
                os.kill(proc.pid, signal.SIGKILL)  # the CLI alone: its workers must follow
        proc.communicate()
        time.sleep(0.3)
        states = {read(p) for p in paths}
        torn |= states - {body, new}
        assert not torn, f"attempt {attempt}: a file is neither old nor new"
        assert _leftovers(tree) == [], f"attempt {attempt}: temporary files left"
        if states == {new}:
            break
    # The batch resumes where it stopped and finishes.
    done = _cli(["--fix", "-q", "--select", "AD201", "-j", "2", tree])
    done.communicate()
    assert done.returncode == 0
    assert {read(p) for p in paths} == {new}


# Two runs fixing different things in the same files.
BOTH = ("import torch\nfrom torch.autograd import Variable\n\n\n"
        + "".join(f"def step{i}(h, loss):\n    loss.backward(retain_variables=True)\n"
                  f"    return Variable(h.data) * {i}\n\n\n" for i in range(3)))


@pytest.mark.slow
def test_two_runs_at_once_never_lose_a_write(tmp_path):
    only_a = autodetach.fix_code(BOTH, select=["AD201"])[0]
    only_b = autodetach.fix_code(BOTH, select=["AD205"])[0]
    both = autodetach.fix_code(only_a, select=["AD205"])[0]
    assert len({BOTH, only_a, only_b, both}) == 4
    tree = tmp_path / "tree"
    paths = [write(tree / f"m{i:03}.py", BOTH) for i in range(200)]
    args = ["--fix", "--output-format", "json", "--exit-zero", "-j", "2", tree]
    runs = {code: _cli(["--select", code, *args]) for code in ("AD201", "AD205")}
    outs = {code: proc.communicate() for code, proc in runs.items()}
    skipped = {}
    for code, (out, err) in outs.items():
        report = json.loads(out)
        skipped[code] = {os.path.basename(e["path"]) for e in report["errors"]}
        assert all("the file changed since it was read" in e["message"] for e in report["errors"]), err
        assert len(err.decode().splitlines()) == len(report["errors"])  # one line each
    for p in paths:
        name, text = os.path.basename(p), read(p)
        assert text in (only_a, only_b, both), name  # never torn, never mixed up
        if name not in skipped["AD201"]:
            assert "Variable(" not in text, f"{name}: the AD201 run's write was lost"
        if name not in skipped["AD205"]:
            assert "retain_variables" not in text, f"{name}: the AD205 run's write was lost"
    assert _leftovers(tree) == []


def _open_writer(fifo, deadline):
    """Open the FIFO for writing once the run opens it for reading (after it
    has read the file and computed the fix)."""
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            if time.time() > deadline:
                raise AssertionError("the run never reached its write") from None
            time.sleep(0.02)


@pytest.mark.slow
@pytest.mark.parametrize("edit", [True, False])
def test_file_changed_between_read_and_write_is_not_overwritten(tmp_path, edit):
    target = write(tmp_path / "a.py", BAD)
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    env = dict(ENV, AUTODETACH_TEST_BEFORE_WRITE=str(fifo))
    proc = _cli(["--fix", "--select", "AD201", "-j", "1", "a.py"], env=env, cwd=tmp_path)
    try:
        fd = _open_writer(fifo, time.time() + 60)
        edited = BAD + "x = 1  # the owner's edit\n"
        if edit:  # the owner saves while the fix is being written
            write(target, edited)
        os.close(fd)  # lets the run go on to its write
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = err.decode().splitlines()
    if edit:
        assert read(target) == edited  # the owner's content, not a fix of the old one
        assert lines == ["autodetach: a.py: not fixed: the file changed since it was read (another run or "
                         "an editor?)"]
        assert proc.returncode == 2
    else:
        assert read(target) == autodetach.fix_code(BAD, select=["AD201"])[0]
        assert lines == [] and proc.returncode == 0
    assert sorted(os.listdir(tmp_path)) == ["a.py", "pause"]


@pytest.mark.slow
def test_a_worker_killed_mid_file_is_an_error_not_a_hang(tmp_path):
    """The OOM killer takes a pool worker while it holds a file: the run
    ends with one error line per file it could not answer, exit 2, and every
    file is whole (old or fixed)."""
    for i in range(8):
        write(tmp_path / f"m{i}.py", BAD)
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    env = dict(ENV, AUTODETACH_TEST_BEFORE_WRITE=str(fifo))
    proc = _cli(["--fix", "--select", "AD201", "-j", "2", "."], env=env, cwd=tmp_path)
    try:
        os.close(_open_writer(fifo, time.time() + 60))  # a worker reached a write: let that one go
        fd = _open_writer(fifo, time.time() + 60)  # the next one waits at its write
        victims = _children(proc.pid)
        assert victims
        for pid in victims:  # the system kills the workers; the one holding the FIFO among them
            os.kill(pid, signal.SIGKILL)
        os.close(fd)
        deadline = time.time() + 60
        while proc.poll() is None and time.time() < deadline:  # replacement workers may write too
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                time.sleep(0.02)
        out, err = proc.communicate(timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2, err.decode()
    assert "a worker process died" in err.decode()
    fixed = autodetach.fix_code(BAD, select=["AD201"])[0]
    for i in range(8):
        assert read(tmp_path / f"m{i}.py") in (BAD, fixed)
