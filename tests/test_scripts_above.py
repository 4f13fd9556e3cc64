"""The scripts in the folders above a package count as its callers only when
they name the package's folder: a stray script beside a checkout (a home
folder, /tmp) must not change what is reported inside it."""
import textwrap

from autodetach.analysis.project_index import files_mentioning
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules
from tests.test_recall67 import METRICS, TRAINER


def _check(path):
    rules = [r for r in all_rules() if r.code == "AD101"]
    with open(path, encoding="utf-8") as fh:
        found, _, _ = check_source(fh.read(), path, rules, Options())
    return found


def _package(root):
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "metrics.py").write_text(textwrap.dedent(METRICS))
    return pkg / "metrics.py"


def test_a_script_above_that_imports_the_package_is_a_caller(tmp_path):
    metrics = _package(tmp_path / "proj")
    (tmp_path / "proj" / "trainer.py").write_text(textwrap.dedent(TRAINER))
    assert files_mentioning(str(metrics), b"backward") == [str(tmp_path / "proj" / "trainer.py")]
    assert [f.line for f in _check(str(metrics))] == [27, 28]


def test_a_stray_script_above_that_does_not_name_the_package_is_not_read(tmp_path):
    metrics = _package(tmp_path / "proj")
    # the same trainer, importing a `metrics` module of its own folder: not this package's caller
    stray = TRAINER.replace("from pkg.metrics import Metric", "from metrics import Metric")
    (tmp_path / "proj" / "scratch.py").write_text(textwrap.dedent(stray))
    assert files_mentioning(str(metrics), b"backward") == []


def test_a_stray_script_in_the_folder_above_the_checkout_changes_nothing(tmp_path):
    # a checkout without a repository marker in a home folder that holds scratch scripts
    metrics = _package(tmp_path / "proj")
    stray = TRAINER.replace("from pkg.metrics import Metric", "from metrics import Metric")
    (tmp_path / "scratch.py").write_text(textwrap.dedent(stray))
    assert _check(str(metrics)) == []


def test_two_levels_up_the_script_names_the_folder_on_the_way(tmp_path):
    metrics = _package(tmp_path / "repo" / "src")
    (tmp_path / "repo" / "run.py").write_text(textwrap.dedent(TRAINER).replace("from pkg.", "from src.pkg."))
    (tmp_path / "repo" / "other.py").write_text("import torch\ntorch.ones(1).backward()\n")
    assert files_mentioning(str(metrics), b"backward") == [str(tmp_path / "repo" / "run.py")]
