"""action.yml's `autodetach ci` step, run by bash as the runner would run
it, against real git: a bare `origin`, a pull-request branch tracking it.
(The install steps and reviewdog need GitHub; they are not run here.)"""
import os
import shutil
import stat
import subprocess
import sys

import pytest

yaml = pytest.importorskip("yaml")
pytestmark = pytest.mark.slow  # two CLI processes per test

from tests.test_ci import GAN_LINE, git, make_repo  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def step_script() -> str:
    with open(os.path.join(ROOT, "action.yml"), encoding="utf-8") as fh:
        action = yaml.safe_load(fh)
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "run"]
    assert step["shell"] == "bash"
    return step["run"]


@pytest.fixture
def clone(tmp_path):
    """A clone of a repository whose `pr` branch adds findings, checked out on
    `pr` (tracking origin/pr), and a bin/ with an `autodetach` from this checkout."""
    src = make_repo(tmp_path)
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(src), str(origin)], check=True)
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", "-b", "pr", str(origin), str(work)], check=True)
    git(work, "config", "user.email", "dev@example.com")
    git(work, "config", "user.name", "Dev")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "autodetach"
    shim.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m autodetach \"$@\"\n")
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    return work, origin, bindir


def run_step(work, bindir, mode, tmp_path):
    out = tmp_path / "github_output"
    summary = tmp_path / "summary.md"
    env = dict(os.environ, MODE=mode, VERIFY="false", BASE="", ARGS="-j 1", GITHUB_BASE_REF="main",
               GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summary),
               PATH=str(bindir) + os.pathsep + os.environ["PATH"])
    proc = subprocess.run(["bash", "-c", step_script()], cwd=work, env=env, capture_output=True, text=True,
                          timeout=300)
    return proc, out.read_text(), summary.read_text() if summary.exists() else ""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_report_mode_annotates_and_fails(clone, tmp_path):
    work, _, bindir = clone
    proc, outputs, summary = run_step(work, bindir, "report", tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert outputs.strip() == "exit-code=1"
    assert f"::warning file=gan.py,line={GAN_LINE}," in proc.stdout
    assert (work / "autodetach.sarif").exists() and "fake.detach()" in (work / "autodetach.patch").read_text()
    assert summary.count("## autodetach") == 1  # written once, by the reporting run


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_commit_mode_pushes_the_fix_to_the_branch(clone, tmp_path):
    work, origin, bindir = clone
    before = git(origin, "rev-parse", "pr").strip()
    proc, outputs, _ = run_step(work, bindir, "commit", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert outputs.strip() == "exit-code=0"
    assert git(origin, "rev-parse", "pr~1").strip() == before
    assert git(origin, "log", "-1", "--format=%s", "pr").startswith("autodetach: fix ")
    assert "D(fake.detach())" in git(origin, "show", "pr:gan.py")
