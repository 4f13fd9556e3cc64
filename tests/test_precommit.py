"""The pre-commit hooks (.pre-commit-hooks.yaml) through the real pre-commit:
a scratch project whose .pre-commit-config.yaml points at a git copy of this
checkout; pre-commit builds its own virtualenv and installs autodetach into
it from that copy. Offline: no package index is asked (a test talks to no
server it did not start); the virtualenv sees this interpreter's packages
(libcst, setuptools), so pip has nothing to download."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.slow  # builds a virtualenv and installs into it

BAD = "from torch.autograd import Variable\n\n\ndef f(h):\n    return Variable(h.data)\n"


def pre_commit_cmd():
    exe = shutil.which("pre-commit")
    if exe:
        return [exe]
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        pytest.skip("pre-commit is not installed (pip install pre-commit)")
    return [sys.executable, "-m", "pre_commit"]


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def hook_repo(dest) -> str:
    """A one-commit git repository with what pre-commit installs: the
    package, pyproject.toml, README.md and .pre-commit-hooks.yaml, as they
    are in this checkout now (uncommitted edits included)."""
    try:
        listed = git(ROOT, "ls-files", "-co", "--exclude-standard", "-z", "--",
                     "autodetach", "pyproject.toml", "README.md", ".pre-commit-hooks.yaml")
    except (subprocess.CalledProcessError, OSError):
        pytest.skip("this checkout is not a git repository")
    for rel in filter(None, listed.split("\0")):
        src = os.path.join(ROOT, rel)
        if os.path.isfile(src):
            os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
            shutil.copyfile(src, os.path.join(dest, rel))
    git(dest, "init", "-q")
    git(dest, "add", ".")
    git(dest, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "hooks")
    return git(dest, "rev-parse", "HEAD").strip()


def test_both_hooks_run_and_the_fixing_hook_fixes(tmp_path):
    cmd = pre_commit_cmd()
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    rev = hook_repo(str(hooks))
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "train.py").write_text(BAD)
    (proj / "clean.py").write_text("import torch\n")
    (proj / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n"
        "      - id: autodetach-check\n      - id: autodetach\n")
    git(proj, "init", "-q")
    git(proj, "add", ".")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pc-home"), PIP_DISABLE_PIP_VERSION_CHECK="1",
               VIRTUALENV_SYSTEM_SITE_PACKAGES="1", PIP_NO_INDEX="1", PIP_NO_BUILD_ISOLATION="0")
    env.pop("PIP_FIND_LINKS", None)
    env.pop("PYTHONPATH", None)  # the hooks must run the copy installed in pre-commit's environment

    def run():
        return subprocess.run([*cmd, "run", "--all-files", "--color", "never"], cwd=proj, env=env,
                              capture_output=True, text=True, timeout=900)

    first = run()
    out = first.stdout + first.stderr
    assert first.returncode == 1, out
    # the check hook reports, the fixing hook fixes (pre-commit fails a hook that modifies files)
    assert "autodetach (check)" in out and "autodetach (fix)" in out, out
    assert "train.py:5:12: AD201" in out
    assert "files were modified by this hook" in out
    fixed = (proj / "train.py").read_text()
    assert "return h.detach()" in fixed and "Variable" not in fixed  # the unused import goes too
    assert (proj / "clean.py").read_text() == "import torch\n"
    second = run()
    assert second.returncode == 0, second.stdout + second.stderr
    assert second.stdout.count("Passed") == 2
