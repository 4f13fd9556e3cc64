"""A cached result that looked through the project for callers
(`project_index.files_mentioning`) is served only while no file of the
listing it looked through has changed, appeared or gone: a trainer added
beside a metrics module must change the metrics module's report."""
import json
import os
import subprocess
import sys
import textwrap

from autodetach.analysis import project, project_index
from autodetach.analysis.project_index import files_mentioning
from tests.test_recall67 import METRICS, TRAINER

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _report(repo) -> list:
    env = dict(os.environ, PYTHONPATH=ROOT, XDG_CACHE_HOME="")
    out = subprocess.run([sys.executable, "-m", "autodetach", "--select", "AD101", "--output-format", "json",
                          str(repo / "pkg" / "metrics.py")], cwd=str(repo), env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    return [(f["code"], f["line"]) for f in json.loads(out.stdout)["findings"]]


def _repo(tmp_path):
    repo = tmp_path / "repo"
    pkg = repo / "pkg"
    pkg.mkdir(parents=True)
    (repo / "setup.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "metrics.py").write_text(textwrap.dedent(METRICS))
    return repo


def _forget():
    for memo in (project_index._FILES, project_index._ABOVE, project_index._MENTIONS, project_index._STAMPS):
        memo.clear()


def test_the_listing_is_a_dependency_that_goes_stale(tmp_path):
    repo = _repo(tmp_path)
    metrics = str(repo / "pkg" / "metrics.py")
    project.take_deps()
    assert files_mentioning(metrics, b"backward") == []
    deps = project.take_deps()
    assert any(k.startswith(project_index.LISTING) for k in deps)
    _forget()
    assert project.deps_current(deps)
    (repo / "pkg" / "notes.py").write_text("x = 1\n")  # a new file that does not mention the name
    _forget()
    assert project.deps_current(deps)
    (repo / "pkg" / "trainer.py").write_text("def fit(loss):\n    loss.backward()\n")
    _forget()
    assert not project.deps_current(deps)


def test_a_cached_report_follows_a_new_caller(tmp_path):
    repo = _repo(tmp_path)
    assert _report(repo) == []
    assert os.path.isdir(repo / ".autodetach_cache")
    trainer = textwrap.dedent(TRAINER).replace("from pkg.metrics import", "from .metrics import")
    (repo / "pkg" / "trainer.py").write_text(trainer)
    assert _report(repo) == [("AD101", 27), ("AD101", 28)]
    (repo / "pkg" / "trainer.py").unlink()
    assert _report(repo) == []
