"""The realistic 0.3-era training script under corpus/migration/.

The original fails on the installed torch; `autodetach --fix --select AD2`
turns it into exactly train_mnist_03.fixed.py; a second --fix changes
nothing; and the fixed script prints the same numbers as the hand port."""
import os
import shutil
import subprocess
import sys

import pytest

from autodetach.engine import fix_code
from autodetach.registry import by_code

from .corpus import CORPUS, ROOT, run_script

HERE = os.path.join(CORPUS, "migration")
ORIGINAL = os.path.join(HERE, "train_mnist_03.py")
FIXED = os.path.join(HERE, "train_mnist_03.fixed.py")
PORT = os.path.join(HERE, "train_mnist_03.port.py")
AD2 = [f"AD20{i}" for i in range(1, 10)]


def _read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _needs_all_ad2():
    # The expected .fixed file is what every AD2 rule gives: a missing rule is a failure, not a skip.
    missing = [c for c in AD2 if c not in by_code()]
    assert not missing, "the expected .fixed file needs every AD2 rule; missing: " + ", ".join(missing)


def _cli(*args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "autodetach", *args], capture_output=True,
                          text=True, timeout=120, env=env, cwd=ROOT)


@pytest.mark.slow
def test_original_fails_on_current_torch():
    res = run_script(ORIGINAL)
    assert res.returncode != 0, "the 0.3-era script was expected to fail"
    # The old repackage_hidden helper is the first thing to break.
    assert "iteration over a 0-d tensor" in res.stderr, res.stderr[-2000:]


def test_api_fix_gives_the_fixed_file():
    _needs_all_ad2()
    new, findings = fix_code(_read(ORIGINAL), select=["AD2"])
    assert new == _read(FIXED)
    assert findings and all(f.fixed for f in findings), [
        (f.line, f.code, f.message) for f in findings if not f.fixed]
    again, more = fix_code(new, select=["AD2"])
    assert again == new and more == []


def test_cli_fix_gives_the_fixed_file_and_settles(tmp_path):
    _needs_all_ad2()
    target = tmp_path / "train_mnist_03.py"
    shutil.copyfile(ORIGINAL, target)
    first = _cli("--fix", "--select", "AD2", str(target))
    assert first.returncode == 0, first.stdout + first.stderr
    assert target.read_text(encoding="utf-8") == _read(FIXED)
    second = _cli("--fix", "--select", "AD2", str(target))
    assert second.returncode == 0, second.stdout + second.stderr
    assert target.read_text(encoding="utf-8") == _read(FIXED)


def test_fixed_script_matches_hand_port():
    fixed = run_script(FIXED)
    assert fixed.returncode == 0, fixed.stderr[-2000:]
    port = run_script(PORT)
    assert port.returncode == 0, port.stderr[-2000:]
    assert "accuracy" in fixed.stdout and fixed.stdout.count("\n") >= 8
    assert fixed.stdout == port.stdout


# --- the 0.3-era word language model package (issue 9) -------------------------

WORD_LM = os.path.join(HERE, "word_lm_03")
WORD_LM_PORT = os.path.join(HERE, "word_lm_port")
WORD_LM_DATA = os.path.join(HERE, "word_lm_data")
# Idioms of the 0.3 package that fail (or warn, then fail) on the installed torch.
FAILING = [".data[0]", "total_loss[0]", "add_(-lr", "type(h) == Variable", "clip_grad_norm("]


def _run_main(folder, warnings="ignore"):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="",
               PYTHONWARNINGS=warnings)
    return subprocess.run([sys.executable, "main.py"], capture_output=True, text=True, timeout=300,
                          cwd=folder, env=env)


def _copy_word_lm(tmp_path):
    shutil.copytree(WORD_LM, tmp_path / "word_lm_03")
    shutil.copytree(WORD_LM_DATA, tmp_path / "word_lm_data")
    return tmp_path / "word_lm_03"


def _package_text(folder):
    return {name: (folder / name).read_text(encoding="utf-8")
            for name in sorted(os.listdir(folder)) if name.endswith(".py")}


@pytest.mark.slow
def test_word_lm_original_fails_on_current_torch(tmp_path):
    res = _run_main(_copy_word_lm(tmp_path))
    assert res.returncode != 0
    assert "iteration over a 0-d tensor" in res.stderr, res.stderr[-2000:]


@pytest.mark.slow
def test_word_lm_fixed_trains_like_the_hand_port(tmp_path):
    pkg = _copy_word_lm(tmp_path)
    before = _package_text(pkg)
    first = _cli("--fix", "--unsafe-fixes", str(pkg))
    assert first.returncode in (0, 1), first.stdout + first.stderr
    after = _package_text(pkg)
    assert after != before
    # Only the computed `volatile=evaluation` flag is left (ignored today, never an error).
    left = [ln for ln in first.stdout.splitlines() if ": AD" in ln]
    assert len(left) == 1 and "AD204" in left[0] and "computed flag" in left[0], first.stdout
    for name, text in after.items():
        for idiom in FAILING:
            assert idiom not in text, f"{name} still has {idiom!r}"
    # A second --fix changes nothing.
    _cli("--fix", "--unsafe-fixes", str(pkg))
    assert _package_text(pkg) == after
    fixed = _run_main(pkg, warnings="default")
    assert fixed.returncode == 0, fixed.stderr[-2000:]
    assert "overload of add_ is deprecated" not in fixed.stderr
    port = _run_main(WORD_LM_PORT)
    assert port.returncode == 0, port.stderr[-2000:]
    losses = [ln for ln in fixed.stdout.splitlines() if "loss" in ln]
    assert len(losses) >= 12, fixed.stdout
    assert fixed.stdout.splitlines() == port.stdout.splitlines()
